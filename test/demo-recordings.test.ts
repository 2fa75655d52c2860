// The demo's live section: whole recordings of real agents (Claude Code, OpenCode) played
// through the ACP recorder in one demo run per dialect (--verbose), its counters checked
// against the recordings themselves. The demo runs through the CLI's dispatcher (in process).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBothDialects } from './helpers/test-db.js';
import { loadAcpFixture, type AcpFixtureName } from './helpers/acp-fixtures.js';
import { captureDemo, demoTarget, printed, subagentFrames, type DemoTarget } from './helpers/demo-run.js';

describeBothDialects('demo', (dialect) => {
  let target: DemoTarget;
  let run: { code: number; text: string; errors: string };

  // One demo run per dialect (the full walk-through, --verbose); every test below only reads what it printed and wrote.
  beforeAll(async () => {
    target = await demoTarget(dialect);
    run = await captureDemo([...target.args, '--verbose']);
  });
  afterAll(async () => target.close());

  it('plays whole recordings of real agents through the ACP recorder, and its counters add up', () => {
    const c = printed(
      run.text,
      /attempted (\d+) · persisted (\d+) · skipped_no_identity (\d+) · failed (\d+) · anomalous_value (\d+) · unknown_execution (\d+)/,
    )
      .slice(1)
      .map(Number);
    const [attempted, persisted, skipped, failed, anomalous, unknown] = c;
    const turns = [...run.text.matchAll(/^\s+- ([\w-]+): (\d+) notifications, (\d+) frames, (\d+) subagents — (.*)$/gm)].map((m) => ({
      name: m[1] as AcpFixtureName,
      updates: Number(m[2]),
      frames: Number(m[3]),
      says: m[5],
    }));
    expect(turns.length).toBeGreaterThanOrEqual(3);
    // Every update of each recording was played, and each one the recognizer takes for a subagent made a frame.
    for (const t of turns) expect([t.name, t.updates, t.frames]).toEqual([t.name, loadAcpFixture(t.name).length, subagentFrames(t.name)]);
    const sum = (ts: typeof turns, key: 'updates' | 'frames') => ts.reduce((n, t) => n + t[key], 0);
    expect(Number(printed(run.text, /Live, off the wire: (\d+) ACP notifications/)[1])).toBe(sum(turns, 'updates'));
    expect(attempted).toBe(sum(turns, 'frames'));
    expect(attempted).toBe(persisted + skipped + failed);
    // The turn without a task id is skipped whole, the one without an execution id is kept under 'unknown'.
    expect(skipped).toBe(
      sum(
        turns.filter((t) => t.says.includes('skipped_no_identity')),
        'frames',
      ),
    );
    expect(unknown).toBe(
      sum(
        turns.filter((t) => t.says.includes("'unknown'")),
        'frames',
      ),
    );
    expect([skipped > 0, unknown > 0, failed, anomalous]).toEqual([true, true, 0, 0]);
  });
});
