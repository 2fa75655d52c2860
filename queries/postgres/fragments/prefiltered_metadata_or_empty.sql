/*
 * prefiltered_metadata_or_empty(x): metadata_or_empty for rows already past
 * subagent_prefilter (which NULL, '' and 'null' never pass): invalid JSON reads as '{}'.
 * @requires subagent_prefilter
 */
CASE WHEN {{valid_jsonb(x)}} THEN x::jsonb ELSE '{}'::jsonb END
