/*
 * metadata_or_empty(x): AC-23b's metadata normalization around valid_jsonb (the costly part,
 * asked last): NULL, '', 'null', text that cannot be a subagent document, and invalid JSON all
 * read as '{}'::jsonb (jsonb_or_empty, which also reads a document jsonb refuses only for its
 * \u0000 escapes). x is read as text whatever the column's type (subagent_prefilter says why;
 * jsonb_or_empty casts on its own): on jsonb, '' and = '' would otherwise raise.
 */
(CASE WHEN x::text IS NULL OR x::text = '' OR x::text = 'null'
        OR strpos(x::text, 'subagent_task') = 0
      THEN '{}'::jsonb
      ELSE {{jsonb_or_empty(x)}} END)
