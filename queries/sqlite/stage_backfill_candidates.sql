/*
 * Phase 1 of the SQLite backfill (issue 32; src/migrations/backfill-stage.ts): the messages
 * with rowids in [from, upTo] that can be subagent messages (the runner's range (after, upTo],
 * given from its first rowid: a range may begin at -2^63, which has nothing below it), kept in the staging table
 * (schema/backfill/sqlite/001_backfill_stage.sql). The rowid range reads the host's table in
 * storage order, each page once over the whole phase, as 0.2's single statement read it.
 *
 * A superset, judged again in phase 2: the text prefilter, valid JSON and normalized.kind
 * (the cheap part of AC-21), with what AC-21b ranks by (rowid, task id, tool_call_id,
 * created_at as utc9), read here from the document the prefilter and json_valid have just
 * read (SQLite's JSON cache: one parse a message). Phase 2 ranks from these columns while
 * nothing can have changed since they were staged; otherwise it re-reads each candidate by
 * id and applies every rule to the message as it is then (backfill_subagent_contexts.sql),
 * so a message the host changed or deleted between the phases is judged as phase 2 sees it.
 * The columns are the chunk statement's `keyed` CTE's, expression for expression, so both
 * ways rank alike. Nothing here can raise: json_extract reads only documents json_valid
 * admitted.
 *
 * Only a message whose session is text: a session that is not text is never recordable
 * (AC-21a), and the staging table's text key would otherwise make one so (a host column without
 * a declared type may hold an integer). Its id may be anything but NULL: the id only ranks
 * (AC-21b's tiebreak, byte order within a type, integers before text before BLOBs) and finds the
 * message again, so a message whose id is a BLOB (a Go []byte written to the host's TEXT
 * PRIMARY KEY stays one) or a number (a host column without a declared type) competes as in the
 * single statement; the staging table's id column has no declared type, so the value is staged
 * as it is. (Staging text ids alone, a newer message with a BLOB id lost to an older one with a
 * text id: a review, 2026-12.) A message whose id is NULL (a rowid table's primary key may be)
 * would make this statement fail on the NOT NULL, on every boot: it gets no row from the
 * backfill (the single statement of 0.2 ranked one whose id is NULL).
 *
 * ON CONFLICT DO NOTHING: a message read twice into the range table adds nothing.
 */
/* @returns exec */
/* @name stageBackfillCandidates */
INSERT INTO temp.subagent_context_backfill_range (task_session_id, id, rid, task_id, tool_call_id, created_utc9)
SELECT m.task_session_id, m.id, m.rowid, m.task_id,
       CASE WHEN json_type(m.metadata, '$.tool_call_id') = 'text'
            THEN json_extract(m.metadata, '$.tool_call_id') END,    -- a JSON string only (AC-21a)
       {{utc9(m.created_at)}}
  FROM task_session_messages AS m
 WHERE m.rowid >= :from! AND m.rowid <= :upTo!
   AND m.id IS NOT NULL AND typeof(m.task_session_id) = 'text'
   AND {{subagent_prefilter(m.metadata)}}
   AND {{prefiltered_valid_json(m.metadata)}}
   AND json_type(m.metadata, '$.normalized.kind') = 'text'
   AND json_extract(m.metadata, '$.normalized.kind') = 'subagent_task'
ON CONFLICT DO NOTHING;
