-- AC-33 on PostgreSQL: bring a pre-amendment task_session_subagents to the amended shape in
-- place. The runner (src/postgres/migrations.ts) applies this inside ONE transaction holding
-- the migration lock, then re-observes the shape and rolls back unless AC-33's clauses 1–3
-- hold, so a failure leaves the pre-amendment table exactly as it was (AC-33a). Idempotent:
-- each part acts only on what the catalog shows is still missing.
DO $upgrade$
DECLARE
  rel regclass := to_regclass('task_session_subagents');
  found record;
BEGIN
  IF rel IS NULL THEN
    RETURN; -- no table: create_subagent_table makes the amended shape directly
  END IF;

  -- Clause 1: the column, NOT NULL. Pre-amendment rows take the sentinel 'unknown' (AC-31,
  -- clause 5); the default is dropped afterwards so the column matches the fresh DDL (the
  -- writer always names it). A constant default makes the ADD a catalog-only change.
  IF NOT EXISTS (SELECT 1 FROM pg_attribute
                  WHERE attrelid = rel AND attname = 'agent_execution_id' AND NOT attisdropped) THEN
    EXECUTE format('ALTER TABLE %s ADD COLUMN agent_execution_id TEXT NOT NULL DEFAULT %L', rel, 'unknown');
    EXECUTE format('ALTER TABLE %s ALTER COLUMN agent_execution_id DROP DEFAULT', rel);
  ELSIF NOT EXISTS (SELECT 1 FROM pg_attribute
                     WHERE attrelid = rel AND attname = 'agent_execution_id' AND NOT attisdropped AND attnotnull) THEN
    EXECUTE format('UPDATE %s SET agent_execution_id = %L WHERE agent_execution_id IS NULL', rel, 'unknown');
    EXECUTE format('ALTER TABLE %s ALTER COLUMN agent_execution_id SET NOT NULL', rel);
  END IF;

  -- Clause 3: drop the two-column key. It is found by its COLUMN SET, never by name:
  -- auto-generated constraint names truncate at 63 bytes. First UNIQUE constraints, then
  -- any bare unique index on the same two columns.
  FOR found IN
    SELECT c.conname
      FROM pg_constraint AS c
     WHERE c.conrelid = rel AND c.contype = 'u'
       AND ARRAY(SELECT a.attname::text COLLATE "C" FROM pg_attribute AS a
                  WHERE a.attrelid = rel AND a.attnum = ANY (c.conkey) ORDER BY 1)
           = ARRAY['task_session_id', 'tool_call_id']
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', rel, found.conname);
  END LOOP;
  FOR found IN
    SELECT i.indexrelid::regclass AS index_name
      FROM pg_index AS i
     WHERE i.indrelid = rel AND i.indisunique
       AND NOT EXISTS (SELECT 1 FROM pg_constraint AS c WHERE c.conindid = i.indexrelid)
       AND ARRAY(SELECT a.attname::text COLLATE "C" FROM pg_attribute AS a
                  WHERE a.attrelid = rel AND a.attnum = ANY (i.indkey::int2[]) ORDER BY 1)
           = ARRAY['task_session_id', 'tool_call_id']
  LOOP
    EXECUTE format('DROP INDEX %s', found.index_name);
  END LOOP;

  -- Clause 2: the three-column key, in the key's own column order. Left unnamed so
  -- PostgreSQL chooses the same name CREATE TABLE gives it on a fresh database.
  IF NOT EXISTS (
    SELECT 1
      FROM pg_index AS i
     WHERE i.indrelid = rel AND i.indisunique AND i.indisvalid
       AND i.indpred IS NULL AND i.indexprs IS NULL
       AND ARRAY(SELECT a.attname::text
                   FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                   JOIN pg_attribute AS a ON a.attrelid = rel AND a.attnum = k.attnum
                  WHERE k.ord <= i.indnkeyatts
                  ORDER BY k.ord)
           = ARRAY['task_session_id', 'agent_execution_id', 'tool_call_id']
  ) THEN
    EXECUTE format('ALTER TABLE %s ADD UNIQUE (task_session_id, agent_execution_id, tool_call_id)', rel);
  END IF;
END
$upgrade$;
