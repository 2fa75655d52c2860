// The ACP traffic the demo's live phase plays: the session/update notifications real agents
// sent (recordings/acp/<name>.jsonl, recorded offline by `npm run record:acp-fixtures`, one
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

const DIR = join(dirname(createRequire(import.meta.url).resolve('subagent-context/package.json')), 'recordings', 'acp');

/** A file of the package; a missing one is a broken install, not a database failure (no `code` on the error, so the CLI reports it as internal). */
function read(file: string): string {
  try {
    return readFileSync(join(DIR, file), 'utf8');
  } catch (err) {
    throw new Error(`the demo's ACP recording ${join(DIR, file)} cannot be read (${(err as { code?: string }).code ?? 'error'}): the package is incomplete`, {
      cause: err,
    });
  }
}

export function loadRecording(name: RecordingName): Recording {
  const meta = JSON.parse(read(`${name}.meta.json`)) as { acpSessionId: string };
  const lines = read(`${name}.jsonl`).split('\n');
  return { acpSessionId: meta.acpSessionId, updates: lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as AcpSessionUpdateParams) };
}
