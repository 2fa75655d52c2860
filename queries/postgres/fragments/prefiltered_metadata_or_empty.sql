/*
 * prefiltered_metadata_or_empty(x): metadata_or_empty for rows already past
 * subagent_prefilter (which NULL, '' and 'null' never pass): invalid JSON reads as '{}'
 * (jsonb_or_empty, which also reads a document jsonb refuses only for its \u0000 escapes, and
 * reads x as text whatever the column's type).
 * @requires subagent_prefilter
 */
({{jsonb_or_empty(x)}})
