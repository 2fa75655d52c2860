/*
 * IMPORT — a launch line read after a later line of its call created the row: its instant is
 * the row's first observation. Claude Code queues a nested background subagent's end notice in
 * the main transcript, which is read before the parent subagent's transcript that holds the
 * launch, so the notice's instant became observed_at, later than the settled_at the launch's
 * own result gave. observed_at moves back to :at, never forward, and the row takes the
 * launch's turn (the notice's line may belong to a later prompt: turn_id is otherwise the first
 * frame's); nothing else changes. Live rows never meet this statement: the import writes its
 * own execution ids. :at is the
 * package's TIMESTAMP text, as the upsert writes it.
 */
/* @returns exec */
/* @name importBackdateLaunchRow */
UPDATE task_session_subagents
   SET observed_at = :at!::timestamp,
       turn_id     = COALESCE(:turnId, turn_id)
 WHERE task_session_id = :sessionId!
   AND agent_execution_id = :executionId!
   AND tool_call_id = :toolCallId!
   AND observed_at > :at!::timestamp;
