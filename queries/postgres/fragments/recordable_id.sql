/*
 * recordable_id(x): src/identity.ts's recordable id; test/codegen-fragments.test.ts pins the
 * 512 to MAX_ID_BYTES. A UTF8 database's text holds no NUL and only well-formed UTF-8 (jsonb
 * rejects a '\u0000' or lone-surrogate escape, so such a document reads as '{}'): non-empty
 * and the length are the checks left, in bytes as the index stores them. Written for the
 * planner: the argument is read once (it copies an inlined CTE's expression to each
 * reference, and in the shortfall that expression parses the document; BETWEEN would read it
 * twice), and the test is a NULL test, whose default selectivity (0.995) is that of the
 * `<> ''` it replaces, where `len <= 512` would count as 1/3 per id and skew the anti-join's
 * plan (count_shortfall_since_capture.sql).
 * @anchor octet_length(
 */
(NULLIF(octet_length(NULLIF(x, '')) <= 512, false) IS NOT NULL)
