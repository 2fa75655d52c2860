// The ACP traffic recorded from real agents (recordings/acp/*.jsonl, re-recorded by
// scripts/record-acp-fixtures.ts): one session/update params object per line, in arrival order.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AcpHostContext } from '../../src/acp/index.js';
import { EXEC_A } from './live-db.js';

export type AcpFixtureName =
  | 'claude-fanout'
  | 'claude-subagents-capability'
  | 'claude-refused'
  | 'opencode-fanout'
  | 'codex-fanout'
  | 'codex-subagents-capability'
  | 'codex-multi-agent-v2'
  | 'gemini-fanout'
  | 'gemini-refused'
  | 'qwen-fanout';

export interface AcpUpdate {
  sessionId: string;
  update: Record<string, unknown>;
}

const DIR = join(import.meta.dirname, '..', '..', 'recordings', 'acp');

export function loadAcpFixture(name: AcpFixtureName): AcpUpdate[] {
  return readFileSync(join(DIR, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AcpUpdate);
}

/** The ACP session the host started (the recorded session/new result). */
export function acpSessionOf(name: AcpFixtureName): string {
  return (JSON.parse(readFileSync(join(DIR, `${name}.meta.json`), 'utf8')) as { acpSessionId: string }).acpSessionId;
}

/** The host identity the tests give every known ACP session. */
export const HOST: AcpHostContext = { sessionId: 's1', taskId: 'task-1', executionId: EXEC_A, turnId: 'turn-1' };

/** A context that knows exactly these ACP sessions. */
export function contextFor(...acpSessionIds: string[]): (id: string) => AcpHostContext | undefined {
  const known = new Set(acpSessionIds);
  return (id) => (known.has(id) ? HOST : undefined);
}
