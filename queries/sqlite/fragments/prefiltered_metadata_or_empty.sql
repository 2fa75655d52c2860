/*
 * prefiltered_metadata_or_empty(x): metadata_or_empty for rows already past
 * subagent_prefilter (which NULL, '' and 'null' never pass): invalid JSON reads as '{}'.
 * @requires subagent_prefilter
 * @anchor json_valid(
 */
CASE WHEN json_valid(x) THEN x ELSE '{}' END
