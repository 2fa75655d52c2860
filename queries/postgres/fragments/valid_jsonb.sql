/*
 * valid_jsonb(x): whether x parses as jsonb (NULL: false), never raising: AC-23b's validity
 * test, with no function another role could plant or squat (issue 30 items 7 and 8). It calls
 * pg_input_is_valid(text, text), and every statement that includes it runs in a transaction
 * whose search_path the package pinned first (queries/postgres/set_local_search_path.sql):
 * pg_catalog, then on PostgreSQL 15 the package's own schema subagent_context, then the
 * session's. So on PostgreSQL 16 and later the call is the built-in, and on 15, which lacks
 * it, the package's own function (schema/postgres/004_json_helpers.sql, judged by
 * observe_json_helper.sql); a function of that name anywhere on the session's search_path
 * comes after both and is never reached. Both arguments are cast to text so the call matches
 * (text, text) exactly: an overload that fits the argument's own type better (varchar, say)
 * elsewhere on the path cannot win the resolution. Every other read of x is x::text too (a no-op
 * on text), so a jsonb or json metadata column reads as its text (docs/host-tables.md).
 * The built-in raises "stack depth limit exceeded" (a hard error) on a document nested about
 * 10,000 deep, and one such row would fail the backfill on every boot, so a document is asked
 * only when it is nested at most 1,000 deep — SQLite's json_valid limit, so both dialects read
 * a deeper document as invalid. The depth is read only when the document holds more than 1,000
 * '[' and '{' (the count bounds the depth), i.e. almost never. Its JSON strings removed (a string
 * that never closes runs to the end of the text, as the parser reads it: matched back from each
 * quote to the end, the regular expression took quadratic time, 25 s for 160 KB of \"), the
 * brackets left are read in stretches of 255 (regexp_matches: PostgreSQL's largest repetition
 * count), each stretch's openers counted by replace(). The depth at a stretch's end is the sum of
 * the openers less the closers up to there: past 1,000 at any end, the document is deeper; at
 * most 1,000 at every stretch's start plus its openers, it is not; no bracket left (a document
 * that is one string), it is not. Only otherwise (some stretch could reach past 1,000 from where
 * it starts) is the whole document read bracket by bracket: the running sum, its maximum. Bracket
 * by bracket throughout, a document nested 60,000 deep took 63 ms to judge, and the backfill of
 * test/reliability/fuzz-metadata.test.ts (one in fourteen of its hostile documents is such) 14.1 s;
 * in stretches 10 ms and 0.97 s. OFFSET 0 keeps the brackets left one value, computed once, which
 * both the stretches and that reading use. The count is the bytes replace() removes: '[' and
 * '{' are one byte in every server encoding, and replace() searches bytes where translate()
 * decodes each character (a 50 MB document: 0.6 s instead of 1.5 s). Both the count and the
 * depth's regular expression read the text under COLLATE "C": replace() follows the column's
 * collation, and under a nondeterministic one (PostgreSQL 18 accepts them there; an ICU
 * collation that ignores punctuation, say) '[' would also match quotes, commas and spaces, and
 * the regular expression would raise (nondeterministic collations are not supported for them).
 * The expression's backslashes are written '~' and made chr(92) by replace(): a backslash in a
 * plain literal is an escape where a role or database sets standard_conforming_strings off, and
 * the expression then compiled without them and raised 2201B, failing the backfill on every boot
 * and the health check (a review, 2026-12-07; test/postgres-string-literals.test.ts). The
 * pattern is a constant: the planner folds the replace() once.
 * The whole test is a scalar subquery on purpose: its Result node resets its own memory as soon
 * as it has answered, so the detoasted copies and pg_input_is_valid's parse of a large document
 * are freed before the caller casts that document (the cast is evaluated in the caller's per-row
 * memory, which would otherwise hold both parses at once). One 50 MB document: the backfill's
 * server backend peaked at 773 MB inline, 423–428 MB as a subquery, no slower on the dense 1M store
 * (BENCHMARKS.md, "The hostile document on PostgreSQL").
 * @anchor pg_input_is_valid(
 */
(SELECT CASE WHEN octet_length(x::text) - octet_length(replace(replace((x::text) COLLATE "C", '[', ''), '{', '')) <= 1000 THEN pg_input_is_valid(x::text, 'jsonb'::text)
      WHEN (SELECT CASE WHEN s.b = '' THEN true
                        WHEN p.deepest_end > 1000 THEN false
                        WHEN p.reach <= 1000 THEN true
                        ELSE (SELECT max(d.depth)
                                FROM (SELECT sum(CASE WHEN b.c IN ('[', '{') THEN 1 ELSE -1 END) OVER (ORDER BY b.i) AS depth
                                        FROM unnest(string_to_array(s.b, NULL)) WITH ORDINALITY AS b(c, i)) AS d) <= 1000 END
              FROM (SELECT regexp_replace((x::text) COLLATE "C", replace('"(~~.|[^"~~])*("|~~?$)|[^][{}]', '~', chr(92)), '', 'g') AS b OFFSET 0) AS s
                   CROSS JOIN LATERAL (SELECT max(k.before + k.net) AS deepest_end, max(k.before + k.opens) AS reach
                                         FROM (SELECT o.opens, 2 * o.opens - o.len AS net,
                                                      coalesce(sum(2 * o.opens - o.len) OVER (ORDER BY g.i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
                                                 FROM regexp_matches(s.b, '.{1,255}', 'g') WITH ORDINALITY AS g(part, i)
                                                      CROSS JOIN LATERAL (SELECT length(g.part[1]) AS len,
                                                                                 length(g.part[1]) - length(replace(replace(g.part[1], '[', ''), '{', '')) AS opens) AS o) AS k) AS p)
        THEN pg_input_is_valid(x::text, 'jsonb'::text)
      ELSE false END)
