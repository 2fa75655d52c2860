/*
 * IMPORT — where the import stopped in each of the given transcripts of one importer (source),
 * with the last response it counted (schema: subagent_context_import_progress); a transcript
 * never imported has no row. Read per project folder, in batches of keys, by primary-key
 * lookups (source, transcript): memory follows the largest batch, not the tree (a read of every
 * row of the source, kept for the run, grew a second import's peak with the tree).
 * Counters come back as text on PostgreSQL (BIGINT), parsed by the caller.
 */
/* @returns many */
/* @name importReadProgressOf */
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
 WHERE p.source = :source!
   AND p.transcript IN (SELECT j.value FROM json_each(:transcripts!) AS j);
