/*
 * recordable_id(x): src/identity.ts's recordable id — text, non-empty, at most MAX_ID_BYTES
 * (512) UTF-8 bytes (in a UTF-8 database), no NUL, well-formed; test/codegen-fragments.test.ts
 * pins the 512 to the TypeScript constant. nullif() so that the argument is read once per term.
 * length(CAST(x AS BLOB)) is the byte length in the database's encoding (octet_length would
 * say the same, but needs SQLite 3.43, newer than the package's 3.38 floor:
 * test/sqlite-floor.test.ts). length() counts characters up to the first NUL, so
 * length = byte length holds exactly for NUL-free ASCII, the usual id, which then skips the
 * costlier checks.
 * SQLite's GLOB decodes a lone surrogate (as json_extract renders a '\ud800' escape), an
 * overlong or truncated sequence, and U+FFFE/U+FFFF as U+FFFD; removing the real U+FFFD,
 * U+FFFE and U+FFFF first leaves a U+FFFD match only where the text is not well-formed.
 * @anchor AS BLOB
 * @anchor char(65533)
 */
(typeof(x) = 'text' AND length(CAST(nullif(x, '') AS BLOB)) <= 512
  AND (length(x) = length(CAST(x AS BLOB))
       OR (instr(x, char(0)) = 0
           AND NOT replace(replace(replace(x, char(65533), ''), char(65534), ''), char(65535), '') GLOB '*' || char(65533) || '*')))
