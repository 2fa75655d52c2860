/* The rowid of one host message, by its id (the phase-1 anchor's check; read_message_rowid_anchor.sql). */
/* @returns maybe-one */
/* @name readMessageRowidById */
SELECT m.rowid AS "rid!::bigint" FROM task_session_messages AS m WHERE m.id = :id!;
