/*
 * Phase 1 of the SQLite backfill (issue 32; src/migrations/backfill-stage.ts): the messages
 * with rowids in [from, upTo] that can be subagent messages (the runner's range (after, upTo],
 * given from its first rowid: a range may begin at -2^63, which has nothing below it), kept in the staging table
 * (schema/backfill/sqlite/001_backfill_stage.sql). The rowid range reads the host's table in
 * storage order, each page once over the whole phase, as 0.2's single statement read it.
 *
 * A superset, judged again in phase 2: the text prefilter, valid JSON and normalized.kind
 * (the cheap part of AC-21). Phase 2 re-reads each candidate by id and applies every rule
 * to the message as it is then (backfill_subagent_contexts.sql), so a message the host
 * changed or deleted between the phases is judged as phase 2 sees it. Nothing here can
 * raise: json_extract reads only documents json_valid admitted.
 *
 * ON CONFLICT DO NOTHING: a message read twice into the range table adds nothing.
 */
/* @returns exec */
/* @name stageBackfillCandidates */
INSERT INTO temp.subagent_context_backfill_range (task_session_id, id)
SELECT m.task_session_id, m.id
  FROM task_session_messages AS m
 WHERE m.rowid >= :from! AND m.rowid <= :upTo!
   AND {{subagent_prefilter(m.metadata)}}
   AND {{prefiltered_valid_json(m.metadata)}}
   AND json_extract(m.metadata, '$.normalized.kind') = 'subagent_task'
ON CONFLICT DO NOTHING;
