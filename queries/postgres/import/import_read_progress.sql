/*
 * IMPORT — every transcript one importer (source) has taken lines from, with where it stopped
 * and the last response it counted (schema: subagent_context_import_progress). Read once per
 * run; one row per transcript file, so memory follows the number of files, not their size.
 * Counters come back as text on PostgreSQL (BIGINT), parsed by the caller.
 */
/* @returns many */
/* @name importReadProgress */
SELECT p.transcript AS "transcript!",
       p.task_session_id AS "sessionId!",
       p.byte_offset::text AS "byteOffset!",
       p.lines::text AS "lines!",
       p.malformed_lines::text AS "malformedLines!",
       p.turn_id AS "turnId?",
       p.last_message_id AS "lastMessageId?",
       p.last_model AS "lastModel?",
       p.last_input_tokens::text AS "lastInputTokens?",
       p.last_output_tokens::text AS "lastOutputTokens?",
       p.last_cache_read_tokens::text AS "lastCacheReadTokens?",
       p.last_cache_creation_tokens::text AS "lastCacheCreationTokens?"
  FROM subagent_context_import_progress AS p
 WHERE p.source = :source!;
