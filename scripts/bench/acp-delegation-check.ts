// What "never blind in silence" costs on ordinary traffic (issue 29 item 8): the recognizer over
// a stream of tool calls that are not subagents — every ACP ordinary kind, titles that name files
// and commands (some with "agent" in them), Claude Code's own tools with their `_meta`, thought
// chunks — with the unrecognized-delegation check against the same recognizer without it.
// Alternating pairs of passes over input parsed fresh from JSON (untimed); the figure is the
// median of the pairs' time ratios (target ≤ 1.05×: nothing measurable).
import { recognizerWithShapes, SHAPES } from '../../src/acp/recognizer.js';
import type { Finding } from './findings.js';
import { fmtInt, median } from './stats.js';

type Update = { sessionId: string; update: object };

function ordinaryTraffic(calls: number): Update[] {
  const updates: Update[] = [];
  const kinds = [
    { kind: 'read', title: (i: number) => `Read src/agents/module-${i}.ts` },
    { kind: 'edit', title: (i: number) => `Edit src/module-${i}.ts` },
    { kind: 'execute', title: (i: number) => `npm run test -- part ${i}` },
    { kind: 'search', title: (i: number) => `grep -rn "spawn" src/part-${i}` },
    { kind: 'think', title: (i: number) => `Plan step ${i}` },
    { kind: 'other', title: (i: number) => `Fetch issue #${i}` },
  ];
  for (let i = 0; i < calls; i++) {
    const sessionId = `acp-${i % 64}`;
    const toolCallId = `call_${i}`;
    const claude = i % 3 === 0;
    const { kind, title } = kinds[i % kinds.length];
    const meta = claude ? { _meta: { claudeCode: { toolName: kind === 'read' ? 'Read' : 'Bash' } } } : {};
    updates.push({ sessionId, update: { sessionUpdate: 'tool_call', toolCallId, title: title(i), kind, status: 'pending', rawInput: {}, ...meta } });
    updates.push({ sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', ...meta } });
    updates.push({ sessionId, update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `thinking about part ${i}` } } });
    updates.push({ sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [], ...meta } });
  }
  return updates;
}

function pass(json: string, lookalikes: boolean): number {
  const updates = JSON.parse(json) as Update[];
  let reported = 0;
  const r = recognizerWithShapes(SHAPES, { onUnrecognizedDelegation: () => void reported++ }, { lookalikes });
  const start = process.hrtime.bigint();
  for (const u of updates) if (r.observe(u)) throw new Error('an ordinary call was recognized as a subagent');
  const s = Number(process.hrtime.bigint() - start) / 1e9;
  if (reported !== 0) throw new Error(`${reported} ordinary calls reported as unrecognized delegations`);
  return s;
}

export function delegationCheckCost(calls: number, runs: number): Finding {
  const json = JSON.stringify(ordinaryTraffic(calls));
  const updates = calls * 4;
  const seconds = { with: [] as number[], without: [] as number[] };
  const pairs = Math.max(runs, 15);
  for (let r = -1; r < pairs; r++) {
    for (const check of r % 2 === 0 ? [false, true] : [true, false]) {
      const s = pass(json, check);
      if (r >= 0) (check ? seconds.with : seconds.without).push(s);
    }
  }
  const ratio = median(seconds.with.map((s, i) => s / seconds.without[i]));
  const ns = (s: number) => ((median([s]) * 1e9) / updates).toFixed(0);
  return {
    section: 'acp intake',
    dialect: 'sqlite',
    config: `recognizer alone (no database): ${fmtInt(updates)} ordinary updates (${fmtInt(calls)} tool calls of every ordinary kind, a third Claude-shaped)`,
    measured: `with the unrecognized-delegation check ${ns(median(seconds.with))} ns/update`,
    ceiling: `the same recognizer without it ${ns(median(seconds.without))} ns/update`,
    figure: ratio,
    figureText: `${ratio.toFixed(3)}×`,
    target: { kind: 'at-most', value: 1.05, text: '≤ 1.05× (nothing measurable)' },
    detail: `median of ${pairs} alternating pairs' time ratios, each pass's input parsed fresh from JSON (untimed); no ordinary call reported`,
  };
}
