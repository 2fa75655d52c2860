-- subagent_context_is_json(doc): true when doc parses as jsonb. Every statement that reads
-- message metadata asks it before casting, so one malformed document (NULL, '', 'null',
-- '{broken', a '\u0000' escape PostgreSQL's jsonb rejects) is treated as '{}' instead of
-- aborting the statement (AC-23b, DESIGN §2).
-- The exception block is deliberate on every version: a document nested deeper than the
-- server's stack allows makes even pg_input_is_valid() raise "stack depth limit exceeded"
-- (a hard error, not a soft one), and one such row would otherwise fail the backfill on
-- every boot. The block costs a subtransaction per call, which is why every statement calls
-- this only for rows that passed a cheap text prefilter (the few subagent messages).
-- PARALLEL RESTRICTED, not SAFE: a parallel worker cannot start the subtransaction the
-- exception block needs ("cannot start subtransactions during a parallel operation").
-- The comment is the definition's version: the migration replaces any other definition.
CREATE OR REPLACE FUNCTION subagent_context_is_json(doc text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL RESTRICTED
AS $fn$
BEGIN
  IF doc IS NULL THEN
    RETURN false;
  END IF;
  PERFORM doc::jsonb;
  RETURN true;
EXCEPTION WHEN others THEN
  RETURN false;
END
$fn$;

COMMENT ON FUNCTION subagent_context_is_json(text) IS 'subagent-context json helper v2';
