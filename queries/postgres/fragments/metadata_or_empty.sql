/*
 * metadata_or_empty(x): AC-23b's metadata normalization around valid_jsonb (the costly part,
 * asked last): NULL, '', 'null', text that cannot be a subagent document, and invalid JSON all
 * read as '{}'::jsonb (jsonb_or_empty, which also reads a document jsonb refuses only for its
 * \u0000 escapes).
 */
(CASE WHEN x IS NULL OR x = '' OR x = 'null'
        OR strpos(x, 'subagent_task') = 0
      THEN '{}'::jsonb
      ELSE {{jsonb_or_empty(x)}} END)
