/*
 * IMPORT — every transcript one importer (source) has taken lines from, with where it stopped
 * and the last response it counted (schema: subagent_context_import_progress). Read once per
 * run; one row per transcript file, so memory follows the number of files, not their size.
 * Counters come back as text on PostgreSQL (BIGINT), parsed by the caller.
 */
/* @returns many */
/* @name importReadProgress */
SELECT p.transcript AS "transcript!::string",
       p.task_session_id AS "sessionId!::string",
       p.byte_offset AS "byteOffset!::bigint",
       p.lines AS "lines!::bigint",
       p.malformed_lines AS "malformedLines!::bigint",
       p.turn_id AS "turnId?::string",
       p.last_message_id AS "lastMessageId?::string",
       p.last_model AS "lastModel?::string",
       p.last_input_tokens AS "lastInputTokens?::bigint",
       p.last_output_tokens AS "lastOutputTokens?::bigint",
       p.last_cache_read_tokens AS "lastCacheReadTokens?::bigint",
       p.last_cache_creation_tokens AS "lastCacheCreationTokens?::bigint"
  FROM subagent_context_import_progress AS p
 WHERE p.source = :source!;
