/*
 * IMPORT — the message row of a launch read after a later line of its call created it
 * (import_backdate_launch_row.sql says when): its created_at, the first observation as
 * proxy_upsert_subagent_message.sql keeps it, moves back to the launch's instant, never forward,
 * and the row takes the launch's turn, as the subagent row does.
 * The id is the one that statement derives from (session, tool call).
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen: utc9.
 */
/* @returns exec */
/* @name importBackdateLaunchMessage */
UPDATE task_session_messages
   SET created_at = :at!,
       turn_id    = COALESCE(:turnId, turn_id)
 WHERE id = :id!
   AND {{utc9(created_at)}} > {{utc9(:at!)}};
