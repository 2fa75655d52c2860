// The ACP traffic the demo's live phase plays: the session/update notifications real agents
// sent (test/fixtures/acp/<name>.jsonl, recorded offline by `npm run record:acp-fixtures`, one
// notification's params per line, in arrival order). The recordings ship in the package
// (package.json `files`), so the installed demo plays the same bytes the tests read. Found
// through the package's own name (its exports map exports ./package.json): this module runs
// from src/demo/ under tsx and from dist/src/demo/ when built, at different depths.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AcpSessionUpdateParams } from '../acp/index.js';

export type RecordingName = 'claude-fanout' | 'claude-subagents-capability' | 'opencode-fanout';

export interface Recording {
  /** The ACP session the client opened (session/new); a subagent's own updates may name its child session. */
  acpSessionId: string;
  updates: AcpSessionUpdateParams[];
}

const DIR = join(dirname(createRequire(import.meta.url).resolve('subagent-context/package.json')), 'test', 'fixtures', 'acp');

export function loadRecording(name: RecordingName): Recording {
  const meta = JSON.parse(readFileSync(join(DIR, `${name}.meta.json`), 'utf8')) as { acpSessionId: string };
  const lines = readFileSync(join(DIR, `${name}.jsonl`), 'utf8').split('\n');
  return { acpSessionId: meta.acpSessionId, updates: lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as AcpSessionUpdateParams) };
}
