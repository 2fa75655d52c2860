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
 WHERE p.source = :source!
   AND p.transcript = ANY(:transcripts!::text[]);
