/*
 * metadata_or_empty(x): AC-23b's metadata normalization, self-guarded: NULL, '', 'null', text
 * that cannot be a subagent document, and invalid JSON all read as '{}' (DESIGN §2). The
 * cheap guards run before json_valid, so only subagent messages reach the parser. A BLOB
 * holding JSON text is read as its text, as in subagent_prefilter.
 * @anchor json_valid(
 */
(CASE WHEN x IS NULL OR x = '' OR x = 'null'
        OR NOT CAST(x AS TEXT) GLOB '*_task*' OR NOT json_valid(x)
      THEN '{}' ELSE x END)
