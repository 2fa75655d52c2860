/*
 * IMPORT — where an import stopped in one transcript, written in the same transaction as the
 * rows the lines before that point produced: a crash loses the run's rows and its progress
 * together, so the next run reads the same lines again and counts them once.
 *
 * Written FIRST in the unit's transaction, and only over the progress the unit's lines
 * continue from (:fromOffset, 0 for a transcript never imported): when another import moved it
 * since this run read it (two imports into one store at once), the WHERE leaves the row alone,
 * the statement writes no row, and the runner rolls the unit back. The other run already added
 * those lines' usage; adding it again counted it twice (a review reproduced 200,000 requests for
 * 100,000). A transcript's offset only grows (a shrunk file is left alone), so an equal offset
 * is the progress this run read. Concurrent commits of one transcript queue on its key (the row
 * lock, or the unique index for a first insert; SQLite's write lock) and the later one sees the
 * earlier one's offset.
 */
/* @returns exec */
/* @name importWriteProgress */
INSERT INTO subagent_context_import_progress (
  source, transcript, task_session_id, byte_offset, lines, malformed_lines, turn_id,
  last_message_id, last_model, last_input_tokens, last_output_tokens,
  last_cache_read_tokens, last_cache_creation_tokens, updated_at
) VALUES (
  :source!, :transcript!, :sessionId!, :byteOffset!, :lines!, :malformedLines!, :turnId,
  :lastMessageId, :lastModel, :lastInputTokens, :lastOutputTokens,
  :lastCacheReadTokens, :lastCacheCreationTokens, :at!
)
ON CONFLICT (source, transcript) DO UPDATE SET
  byte_offset                = EXCLUDED.byte_offset,
  lines                      = EXCLUDED.lines,
  malformed_lines            = EXCLUDED.malformed_lines,
  turn_id                    = EXCLUDED.turn_id,
  last_message_id            = EXCLUDED.last_message_id,
  last_model                 = EXCLUDED.last_model,
  last_input_tokens          = EXCLUDED.last_input_tokens,
  last_output_tokens         = EXCLUDED.last_output_tokens,
  last_cache_read_tokens     = EXCLUDED.last_cache_read_tokens,
  last_cache_creation_tokens = EXCLUDED.last_cache_creation_tokens,
  updated_at                 = EXCLUDED.updated_at
 WHERE subagent_context_import_progress.byte_offset = :fromOffset!;
