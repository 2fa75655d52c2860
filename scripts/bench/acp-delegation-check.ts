// What "never blind in silence" costs on ordinary traffic (issue 29 item 8): the recognizer over
// a stream of tool calls that are not subagents — every ACP ordinary kind, titles that name files
// and commands (some with "agent" in them), Claude Code's own tools with their `_meta`, thought
// chunks — with the unrecognized-delegation check against the same recognizer without it.
// Two rows: as a host receives the updates (the JSON-RPC line parsed, then observed: target
// ≤ 1.05×, nothing measurable), and the recognizer alone on pre-parsed input (the check's own
// cost laid bare, no target). Alternating pairs of passes; the figure is the median of the
// pairs' time ratios.
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

/** One pass, timed: `receive` adds what a host pays for each update anyway (parsing its JSON-RPC line). */
function pass(lines: string[], lookalikes: boolean, receive: boolean): number {
  const updates = receive ? [] : lines.map((line) => (JSON.parse(line) as { params: Update }).params);
  let reported = 0;
  const r = recognizerWithShapes(SHAPES, { onUnrecognizedDelegation: () => void reported++ }, { lookalikes });
  let recognized = 0;
  const start = process.hrtime.bigint();
  if (receive) {
    for (const line of lines) if (r.observe((JSON.parse(line) as { params: Update }).params)) recognized++;
  } else {
    for (const u of updates) if (r.observe(u)) recognized++;
  }
  const s = Number(process.hrtime.bigint() - start) / 1e9;
  if (recognized !== 0) throw new Error('an ordinary call was recognized as a subagent');
  if (reported !== 0) throw new Error(`${reported} ordinary calls reported as unrecognized delegations`);
  return s;
}

/** The median of alternating pairs' time ratios (with the check / without), and each side's median. */
function pairs(lines: string[], runs: number, receive: boolean) {
  const seconds = { with: [] as number[], without: [] as number[] };
  for (let r = -1; r < runs; r++) {
    for (const check of r % 2 === 0 ? [false, true] : [true, false]) {
      const s = pass(lines, check, receive);
      if (r >= 0) (check ? seconds.with : seconds.without).push(s);
    }
  }
  return { ratio: median(seconds.with.map((s, i) => s / seconds.without[i])), with: median(seconds.with), without: median(seconds.without) };
}

export function delegationCheckCost(calls: number, runs: number): Finding[] {
  const lines = ordinaryTraffic(calls).map((params) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params }));
  const updates = lines.length;
  const n = Math.max(runs, 15);
  const ns = (s: number) => ((s * 1e9) / updates).toFixed(0);
  const traffic = `${fmtInt(updates)} ordinary updates (${fmtInt(calls)} tool calls of every ordinary kind, a third Claude-shaped, none claimed by a shape)`;
  const detail = `median of ${n} alternating pairs' time ratios; no ordinary call recognized or reported`;
  const received = pairs(lines, n, true);
  const alone = pairs(lines, n, false);
  return [
    {
      section: 'acp intake',
      dialect: 'sqlite',
      config: `as a host receives them (each JSON-RPC line parsed, then observed; no database): ${traffic}`,
      measured: `with the unrecognized-delegation check ${ns(received.with)} ns/update`,
      ceiling: `the same without it ${ns(received.without)} ns/update`,
      figure: received.ratio,
      figureText: `${received.ratio.toFixed(3)}×`,
      target: { kind: 'at-most', value: 1.05, text: '≤ 1.05× (nothing measurable)' },
      detail,
    },
    {
      section: 'acp intake',
      dialect: 'sqlite',
      config: `the recognizer alone, worst case (input parsed beforehand, untimed; every update a tool call or a thought): ${traffic}`,
      measured: `with the check ${ns(alone.with)} ns/update`,
      ceiling: `without it ${ns(alone.without)} ns/update`,
      figure: alone.ratio,
      figureText: `${alone.ratio.toFixed(3)}×`,
      // No target: what the check's own reads and regex tests cost, shown (see the row above).
      target: null,
      detail: `${detail}; an unclaimed call's first frame costs about 0.1 us to judge, a later status update a property test`,
    },
  ];
}
