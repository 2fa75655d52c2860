-- DESIGN §3: metric columns are int64 (the spec says int64 verbatim), but an earlier host
-- build declared them INTEGER, which is 32-bit on PostgreSQL. Widen whichever are still
-- narrow, all in one ALTER so the table is rewritten once. Idempotent: does nothing when
-- every metric column is already BIGINT. Not one of AC-33b's key-bearing clauses; the
-- runner applies it only once the AC-33 end state holds, so a failed AC-33 upgrade leaves
-- the pre-amendment table wholly untouched (AC-33a).
DO $widen$
DECLARE
  rel regclass := to_regclass('task_session_subagents');
  changes text;
BEGIN
  IF rel IS NULL THEN
    RETURN;
  END IF;
  SELECT string_agg(format('ALTER COLUMN %I TYPE BIGINT', a.attname), ', ' ORDER BY a.attnum)
    INTO changes
    FROM pg_attribute AS a
   WHERE a.attrelid = rel AND NOT a.attisdropped
     AND a.attname IN ('total_tokens', 'tool_use_count', 'duration_ms')
     AND a.atttypid IN ('int2'::regtype, 'int4'::regtype);
  IF changes IS NOT NULL THEN
    EXECUTE format('ALTER TABLE %s %s', rel, changes);
  END IF;
END
$widen$;
