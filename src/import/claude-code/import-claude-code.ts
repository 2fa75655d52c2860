// `subagent-context import claude-code`: every session under Claude Code's projects folder,
// main transcript first (its launches create the subagent rows; a subagent transcript without
// its sidecar finds its row by agent id), then each subagent's own transcript (its usage, its
// nested launches, its sidecar's facts). Each transcript is read from where the last import
// stopped (src/import/transcript-file.ts). A transcript whose write fails is WARN-logged and
// left for the next run, and so is a file or folder that cannot be listed, stat'ed or read, and
// a symbolic link (never followed): the others go on.
import type { Logger } from '../../types.js';
import { importedExecutionId } from '../identity.js';
import { ProgressMovedError, type ImportRunOptions, type LaunchJob, type TranscriptProgress } from '../import-store.js';
import { consumeTranscript } from '../transcript-file.js';
import { ClaudeTranscriptConsumer, SOURCE, type TranscriptRole } from './transcript-consumer.js';
import { discoverProject, listProjects, readMeta, type SessionFiles, type SkipEntry, type SubagentMeta } from './discover.js';
import { fresh, progressOf, sizeOf, workOf, type Work } from './import-work.js';
import { importProgressBar } from './import-progress-bar.js';
import { emptySummary, type ImportSummary } from './import-summary.js';

export type { ImportSummary };

/** A commit the store refused, told apart from a transcript that could not be read. */
class StoreWriteError extends Error {}

/**
 * The job a sidecar gives the subagent's own call: who ran it, as what, on which model. Not how it
 * ended: its `finished` says it stopped, not whether it succeeded, and the launching transcript's
 * result or notification says that (a sidecar read after a `failed` notice made it `completed`).
 */
function metaJob(sessionId: string, agentId: string, toolCallId: string, meta: SubagentMeta | undefined, parentToolCallId: string | null) {
  return (at: bigint): LaunchJob => ({
    kind: 'subagent',
    sessionId,
    taskId: '',
    turnId: null,
    toolCallId,
    parentToolCallId,
    toolStatus: null,
    messageStatus: null,
    payload: {
      agent_id: agentId,
      subagent_type: meta?.agentType,
      model: meta?.model,
      description: meta?.description,
    },
    at,
    sidecar: true,
  });
}

/** The WARN that a session's task cannot be stored (transcript-consumer.ts): once a session and run, however many units ask. */
function taskRefusals(logger: Logger): (w: Work) => (why: string) => void {
  const refused = new Set<string>(); // only the refused sessions: a handful, not the tree
  return (w) => (why) => {
    if (refused.has(w.session.sessionId)) return;
    refused.add(w.session.sessionId);
    logger.warn(
      { session_id: w.session.sessionId, path: w.path, reason: why, task_id: w.session.project },
      "the session's task id cannot be stored: its project folder's name is the task instead",
    );
  };
}

export async function importClaudeCode(options: ImportRunOptions): Promise<ImportSummary> {
  const { store, logger } = options;
  const summary = emptySummary();
  // One project's listing and progress rows at a time: memory follows the largest project, not
  // the tree (a listing of the whole tree, ~1 KB a transcript, and every progress row of the
  // source read at the start, ~0.5 KB a transcript, grew the peak with the tree, the collector's
  // headroom on top of it).
  const skip: SkipEntry = (path, why) => {
    logger.warn({ path, reason: why }, 'an entry of the transcript folder was left out of this import');
    summary.deferred++;
  };
  const refuseTask = taskRefusals(logger);
  const projects = listProjects(options.from, skip);
  const bar = await importProgressBar(store, options.from, projects, options.onProgress);
  let racing = false; // another import into the store was seen committing a transcript this run read
  let firstUnread: string | null = null;
  for (const project of projects) {
    const sessions = discoverProject(options.from, project, skip);
    summary.sessions += sessions.length;
    for (const session of sessions) {
      summary.helperTranscripts += session.helpers;
      summary.unreadTranscripts += session.unread;
      firstUnread ??= session.firstUnread;
    }
    // The sidecars of the session being imported: a nested subagent's parent call is its parent agent's toolUseId.
    let metas = new Map<string, SubagentMeta | undefined>();
    let subagentCalls = new Set<string>();
    let metasOf: SessionFiles | null = null;
    const work = workOf(sessions, true);
    // Read after the projects before it were imported: a session also found in an earlier project
    // folder of this tree (a copied folder) resumes where that one stopped, not from the start.
    const progress = await progressOf(store, work);
    for (const w of work) {
      const { sessionId } = w.session;
      const executionId = importedExecutionId(SOURCE, sessionId);
      if (metasOf !== w.session) {
        metasOf = w.session;
        metas = new Map(w.session.subagents.map((s) => [s.agentId, readMeta(s.metaPath)]));
        subagentCalls = new Set([...metas.values()].flatMap((m) => (m?.toolUseId ? [m.toolUseId] : [])));
      }
      const listed = progress.get(w.transcript) ?? fresh(w.transcript, sessionId);
      const size = sizeOf(w.path);
      if (typeof size === 'string') {
        skip(w.path, size);
        bar.copyDone(w.transcript, 0);
        continue;
      }
      if (size === listed.byteOffset) {
        bar.copyDone(w.transcript, 0);
        continue;
      }
      // Once another import is seen running at the same time, each transcript's progress is read
      // again by key just before its file: the project's read is older than that import's
      // commits, and every transcript it took since would be read in vain and refused with a
      // WARN (review of 2026-12-05: 400 of 400 in one project). Not before: a read per
      // transcript costs a round trip on PostgreSQL.
      const before = racing ? ((await store.readProgress(SOURCE, [w.transcript])).get(w.transcript) ?? listed) : listed;
      if (size === before.byteOffset) {
        bar.copyDone(w.transcript, size - listed.byteOffset); // read by the other import
        continue;
      }
      let subagent: TranscriptRole['subagent'] = null;
      let calls: ReadonlySet<string>;
      // What the transcript needs from the store, read before it: a database error costs this
      // transcript (left for the next import), never the rest of the run.
      try {
        if (w.agentId !== null) {
          const meta = metas.get(w.agentId);
          const toolCallId = meta?.toolUseId ?? (await store.findToolCall(sessionId, executionId, w.agentId));
          // Taken once its launch is: the row is the launch line's, with the launch's instants.
          if (!toolCallId || !(await store.hasSubagentRow(sessionId, executionId, toolCallId))) {
            // Its session's own transcript is gone (deleted, or cleaned up before any import):
            // the launch can never be read, so no WARN on every run, a count.
            if (w.session.main === null) summary.orphanTranscripts++;
            else {
              logger.warn(
                { path: w.path, agent_id: w.agentId },
                toolCallId
                  ? 'subagent transcript whose launch is not imported yet: left for the next import'
                  : 'subagent transcript without its sidecar and with no launch naming its agent id yet: left for the next import',
              );
              summary.deferred++;
            }
            bar.copyDone(w.transcript, 0); // unread: a later copy may read it, else the bar moves past it
            continue;
          }
          const parentAgent = meta?.parentAgentId;
          const parentToolCallId = parentAgent ? (metas.get(parentAgent)?.toolUseId ?? null) : null;
          subagent = { toolCallId, job: metaJob(sessionId, w.agentId, toolCallId, meta, parentToolCallId) };
        }
        // A transcript read before may hold the end of a launch an earlier import wrote: a failed or
        // interrupted one (no toolUseResult object) is known by its row, still unsettled.
        calls = before.byteOffset > 0 ? new Set([...subagentCalls, ...(await store.unsettledCalls(sessionId, executionId))]) : subagentCalls;
      } catch (err) {
        logger.warn(
          { path: w.path, error: err instanceof Error ? err.message : String(err) },
          'the store could not be read for a transcript: left for the next import',
        );
        summary.writeFailed++;
        bar.copyDone(w.transcript, 0);
        continue;
      }
      const role: TranscriptRole = {
        sessionId,
        executionId,
        subagentCalls: calls,
        launchedBefore: (toolCallId) =>
          store.hasSubagentRow(sessionId, executionId, toolCallId).catch((err: unknown) => {
            throw new StoreWriteError(err instanceof Error ? err.message : String(err), { cause: err });
          }),
        subagent,
        task: options.task,
        fallbackTask: w.session.project,
        refuseTask: refuseTask(w),
        clock: options.clock,
        commit: async (unit) => {
          const outcome = await store.commit(unit).catch((err: unknown) => {
            if (err instanceof ProgressMovedError) throw err;
            throw new StoreWriteError(err instanceof Error ? err.message : String(err), { cause: err });
          });
          summary.frames += outcome.frames;
          summary.failedFrames += outcome.failedFrames;
          // The summary counts what was committed, unit by unit: a transcript whose later unit
          // fails still counts its earlier ones, and lines read but not written (no cwd yet) none.
          summary.bytes += unit.progress.byteOffset - counted.byteOffset;
          summary.lines += unit.progress.lines - counted.lines;
          summary.malformedLines += unit.progress.malformedLines - counted.malformedLines;
          counted = unit.progress;
        },
      };
      let counted: TranscriptProgress = before;
      const working = { ...before, last: before.last && { ...before.last } };
      try {
        await consumeTranscript(w.path, working, new ClaudeTranscriptConsumer(role, working), logger);
      } catch (err) {
        if (err instanceof ProgressMovedError) {
          logger.warn({ path: w.path }, 'another import wrote this transcript’s lines first (two imports at once): left to it');
          summary.overtaken++;
          racing = true;
        } else {
          const write = err instanceof StoreWriteError;
          logger.warn(
            { path: w.path, error: err instanceof Error ? err.message : String(err) },
            write ? 'the store refused a transcript’s lines: left for the next import' : 'importing a transcript failed: left for the next import',
          );
          if (write) summary.writeFailed++;
          else summary.deferred++;
        }
      }
      if (counted !== before) summary.transcripts++;
      bar.copyDone(w.transcript, size - listed.byteOffset);
    }
  }
  // One WARN a run, not one a file: a Workflow run can hold a thousand agents.
  if (summary.unreadTranscripts > 0)
    logger.warn(
      { transcripts: summary.unreadTranscripts, first: firstUnread },
      "transcripts in folders below a session's subagents folder (Claude Code's Workflow runs: subagents/workflows/wf_<run>/) are not imported: their agents have no subagent rows and their usage is not in the ledger",
    );
  return summary;
}
