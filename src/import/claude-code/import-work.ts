// The import's work list (src/import/claude-code/import-claude-code.ts): each session's
// transcripts in reading order, where each was left (its progress row), and each file's size.
// One project's listing at a time.
import { statSync } from 'node:fs';
import type { ImportStore, TranscriptProgress } from '../import-store.js';
import { failureOf, readMeta, type SessionFiles } from './discover.js';
import { SOURCE } from './transcript-consumer.js';

export interface Work {
  session: SessionFiles;
  transcript: string;
  path: string;
  agentId: string | null;
  metaPath: string | null;
}

/** Each session's main transcript, then its subagents' by spawn depth (a launch is read before the run it launched); `ordered` false: in any order. */
export function workOf(sessions: SessionFiles[], ordered: boolean): Work[] {
  return sessions.flatMap((session) => {
    const depth = new Map(session.subagents.map((s) => [s.agentId, ordered ? (readMeta(s.metaPath)?.spawnDepth ?? 1) : 1]));
    const subagents = [...session.subagents].sort((a, b) => depth.get(a.agentId)! - depth.get(b.agentId)! || (a.agentId < b.agentId ? -1 : 1));
    return [
      ...(session.main ? [{ session, transcript: session.sessionId, path: session.main, agentId: null, metaPath: null }] : []),
      ...subagents.map((s) => ({ session, transcript: `${session.sessionId}/agent-${s.agentId}`, path: s.path, agentId: s.agentId, metaPath: s.metaPath })),
    ];
  });
}

export const fresh = (transcript: string, sessionId: string): TranscriptProgress => ({
  transcript,
  sessionId,
  byteOffset: 0,
  lines: 0,
  malformedLines: 0,
  turnId: null,
  last: null,
});

/** Transcript keys per progress read: exact primary-key lookups, a parameter of bounded size. */
export const PROGRESS_BATCH = 1_000;

/** The progress rows of these transcripts (one never imported has none), read in batches of keys. */
export async function progressOf(store: ImportStore, work: Work[]): Promise<Map<string, TranscriptProgress>> {
  const transcripts = work.map((w) => w.transcript);
  const progress = new Map<string, TranscriptProgress>();
  for (let i = 0; i < transcripts.length; i += PROGRESS_BATCH)
    for (const [transcript, p] of await store.readProgress(SOURCE, transcripts.slice(i, i + PROGRESS_BATCH))) progress.set(transcript, p);
  return progress;
}

/** The file's size now, or why it cannot be stat'ed (deleted since it was listed, a folder made unreadable). */
export function sizeOf(path: string): number | string {
  try {
    return statSync(path).size;
  } catch (err) {
    return failureOf(err);
  }
}
