/*
 * prefiltered_metadata_or_empty(x): metadata_or_empty for rows already past
 * subagent_prefilter (which NULL, '' and 'null' never pass): invalid JSON reads as '{}'.
 * @requires subagent_prefilter
 * @anchor subagent_context_is_json(
 */
CASE WHEN subagent_context_is_json(x) THEN x::jsonb ELSE '{}'::jsonb END
