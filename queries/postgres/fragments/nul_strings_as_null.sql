/*
 * nul_strings_as_null(x): a document jsonb refused, read again with every JSON string that holds
 * a \u0000 escape as null (a key holding one keeps its place, the escape read as U+FFFD), or NULL
 * when x cannot be read that way. Go's encoding/json writes a NUL character in a string as
 * \u0000 (tool output with a binary byte in result_text): the document is valid JSON, but jsonb
 * refuses it whole, since PostgreSQL's text cannot hold NUL, and it would read as '{}': a
 * subagent the writer missed was no shortfall, "healthy" (a review, 2026-12-07). The live path
 * reads a string holding a NUL as not reported (NULL) and an id holding one as not recordable; a
 * null here gives both, as SQLite reads them (text_from_metadata, recordable_id). Health only
 * (metadata_or_empty): PostgreSQL's backfill reads such a document as '{}' still
 * (prefiltered_metadata_or_empty says why).
 * How, in linear time whatever the text (a regular expression over JSON strings took quadratic
 * time on hostile text: valid_jsonb): the escaped backslashes and escaped quotes are first set
 * aside as raw control characters, which valid JSON never holds (a text that already holds them
 * is not read: NULL), so every quote left opens or closes a string and every \u0000 left is a NUL
 * escape, \\u0000 being a backslash and 'u0000'. Split at the quotes, the odd parts are what lies
 * between strings and the even parts are the strings' contents; a content with a NUL escape is
 * null, or for a key (the next part begins with ':') the key with U+FFFD for each escape. An odd
 * count of quotes (a string never closed) is no document: NULL. The caller asks valid_jsonb of
 * the result, so nothing here needs to be valid JSON otherwise. COLLATE "C": replace() follows
 * the column's collation, which may be nondeterministic (valid_jsonb). A backslash is chr(92):
 * the query parser codegen uses reads one in a string literal as an escape. x is read as x::text
 * (a no-op on text; a json column, which holds such escapes as written, has no collation and no
 * replace()).
 */
(SELECT CASE WHEN count(*) % 2 = 1
             THEN replace(replace(string_agg(CASE WHEN p.i % 2 = 1 THEN p.part
                                                  WHEN strpos(p.part, chr(92) || 'u0000') = 0 THEN '"' || p.part || '"'
                                                  WHEN ltrim(p.next, ' ' || chr(9) || chr(10) || chr(13)) LIKE ':%'
                                                    THEN '"' || replace(p.part, chr(92) || 'u0000', chr(92) || 'ufffd') || '"'
                                                  ELSE 'null' END, '' ORDER BY p.i),
                                  chr(3), chr(92) || '"'), chr(2), chr(92) || chr(92)) END
   FROM (SELECT u.part, u.i, lead(u.part) OVER (ORDER BY u.i) AS next
           FROM unnest(string_to_array(replace(replace((x::text) COLLATE "C", chr(92) || chr(92), chr(2)), chr(92) || '"', chr(3)), '"')) WITH ORDINALITY AS u(part, i)
          WHERE strpos(x::text, chr(2)) = 0 AND strpos(x::text, chr(3)) = 0) AS p)
