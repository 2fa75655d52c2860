/*
 * metadata_or_empty(x): AC-23b's metadata normalization around subagent_context_is_json
 * (schema/postgres/004, the costly part, already one schema function): NULL, '', 'null',
 * text that cannot be a subagent document, and invalid JSON all read as '{}'::jsonb.
 * @anchor subagent_context_is_json(
 */
(CASE WHEN x IS NULL OR x = '' OR x = 'null'
        OR strpos(x, 'subagent_task') = 0
        OR NOT subagent_context_is_json(x)
      THEN '{}' ELSE x END)::jsonb
