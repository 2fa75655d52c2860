// The report page's sections (./html-page.ts lays them out): fan-out, cards, tokens,
// provenance and executions, and the numbered notes. Each draws its charts with ./svg-chart.ts
// from the bars ./chart-data.ts orders, writes its markup with markup`` (./html.ts: every value
// escaped), and passes every string from the database through t() (visible, instants unbroken).
import { type Bar, fanOutBars, GROUP_LIMIT, maxOf, tokenDistributionBars, tokenGroupBars } from './chart-data.js';
import { clipVisible, visible } from './display-text.js';
import { COLOR } from './html-style.js';
import { formatInt, formatRatio, plural } from '../human-numbers.js';
import { NOTES_EXPLAINED, plainWords } from './notes.js';
import { markup, joinHtml, type Html } from './html.js';
import { horizontalBarChart, keepInstants, shownLabel, verticalBarChart } from './svg-chart.js';
import type { SubagentContextReport } from '../report/types.js';

/** Text from the report (possibly quoting the database) as page HTML: visible, escaped, instants unbroken. */
export const t = (text: string) => keepInstants(visible(text));

export const tile = (n: string, label: string) => markup`<div class="tile"><div class="n">${n}</div><div class="l">${label}</div></div>`;

export function keyText(value: string | null): string {
  return value === null ? 'absent' : value === '' ? "'' (sentinel: there was no history to backfill)" : clipVisible(value, 64);
}

export function fanOutPanel(r: SubagentContextReport): Html {
  const f = r.fan_out;
  // One scale for both eras: the same subagents-per-turn axis and the same turns axis.
  const through = maxOf([...f.known, ...f.unknown].map((b) => b.subagents));
  const scaleMax = maxOf([...f.known, ...f.unknown].map((b) => b.turns));
  const known = verticalBarChart({
    id: 'fan-out-known',
    title: f.known_from === null ? 'Known fan-out: no boundary may be published' : `Known fan-out (first subagent at or after ${f.known_from})`,
    xLabel: 'subagents in the turn',
    yLabel: 'turns',
    bars:
      f.known_from === null
        ? []
        : fanOutBars(
            f.known,
            through,
            f.unknown.map((b) => b.subagents),
          ),
    fill: COLOR.known,
    format: formatInt,
    empty: f.known_from === null ? 'No fan-out is known on this store (see the notes below).' : 'No turn with subagents in this era.',
    scaleMax,
  });
  const unknown = verticalBarChart({
    id: 'fan-out-unknown',
    title:
      f.known_from === null
        ? 'Unknown fan-out (no boundary: every count is a lower bound)'
        : 'Unknown fan-out (turns that began before the boundary: lower bounds)',
    xLabel: 'subagent rows in the turn (at least)',
    yLabel: 'turns',
    bars: fanOutBars(
      f.unknown,
      through,
      f.known.map((b) => b.subagents),
    ),
    fill: COLOR.unknown,
    format: formatInt,
    empty: 'No turn with subagents in this era.',
    scaleMax,
  });
  const legend = markup`<p class="legend-row" id="fan-out-legend"><span class="legend"><span class="swatch known"></span>known fan-out: a complete count per turn</span><span class="legend"><span class="swatch unknown"></span>unknown fan-out: recovered from history, at least this many</span><span class="legend">both charts share one scale</span></p>`;
  return markup`<section class="panel" id="fan-out"><h2>Fan-out: subagents per turn</h2>
<p class="lead">Each bar counts the turns that spawned exactly that many subagents. Turns are counted whole, in the window where their first subagent was observed. ${plural(f.rows_without_turn, 'row')} without a turn, ${plural(f.turns_past_until, 'turn')} continuing past <i>until</i>, ${plural(f.turns_before_since, 'turn')} begun before <i>since</i>.</p>
${legend}
<div class="charts">${known}${unknown}</div></section>`;
}

export function cardsPanel(r: SubagentContextReport): Html {
  const c = r.cards;
  const chart = horizontalBarChart({
    id: 'cards',
    title: 'Contexts per card',
    xLabel: 'per card (task) active in the window',
    yLabel: '',
    bars: [
      { label: 'sessions per card', value: c.sessions_per_card ?? 0 },
      { label: 'contexts per card', value: c.contexts_per_card ?? 0 },
    ],
    fill: COLOR.cards,
    format: formatRatio,
    empty: 'No card was active in the window.',
  });
  return markup`<section class="panel" id="cards"><h2>Cards: the "sessions per card" correction</h2>
<p class="lead">task_sessions alone counts one context per session; every subagent is a further context the card's work ran in. ${plural(c.tasks, 'card')}, ${plural(c.sessions, 'session')} and ${plural(c.subagent_contexts, 'subagent context')} in the window; ${formatInt(c.tasks_with_subagents)} of the cards fanned out.</p>
${chart}</section>`;
}

function tokenTable(r: SubagentContextReport): Html {
  const rows = r.tokens.by_source
    .slice(0, GROUP_LIMIT)
    .map(
      (g) =>
        markup`<tr><td><bdi>${shownLabel(g.source ?? '(none)', 40)}</bdi></td><td>${formatInt(g.rows)}</td><td>${formatInt(g.settled)}</td><td>${formatInt(g.measured)}</td><td>${formatInt(g.unmeasured)}</td><td>${formatInt(g.total_tokens)}</td><td>${g.mean_tokens === null ? '—' : formatInt(Math.round(g.mean_tokens))}</td></tr>`,
    );
  const more =
    r.tokens.by_source.length > GROUP_LIMIT &&
    markup`<tr><td colspan="7">… and ${plural(r.tokens.by_source.length - GROUP_LIMIT, 'other source')} (in the JSON)</td></tr>`;
  const t = r.tokens;
  return markup`<div class="table-wrap wide"><p class="scroll-hint">Scroll sideways for every column →</p><table><thead><tr><th>source</th><th>rows</th><th>settled</th><th>measured</th><th>unmeasured (NULL)</th><th>total tokens</th><th>mean per measured</th></tr></thead>
<tbody>${rows}${more}<tr><td><b>all</b></td><td><b>${formatInt(t.rows)}</b></td><td><b>${formatInt(t.settled)}</b></td><td><b>${formatInt(t.measured)}</b></td><td><b>${formatInt(t.unmeasured)}</b></td><td><b>${formatInt(t.total_tokens)}</b></td><td><b>${t.mean_tokens === null ? '—' : formatInt(Math.round(t.mean_tokens))}</b></td></tr></tbody></table></div>`;
}

export function tokensPanel(r: SubagentContextReport): Html {
  const groupChart = (id: string, title: string, bars: Bar[]) =>
    horizontalBarChart({
      id,
      title,
      xLabel: 'total_tokens of measured subagents; the strip: settled subagents',
      yLabel: '',
      bars,
      fill: COLOR.tokens,
      format: formatInt,
      empty: 'No subagent settled in the window.',
    });
  const distribution = verticalBarChart({
    id: 'token-distribution',
    title: 'Distribution of total_tokens per measured subagent',
    xLabel: 'total_tokens of one subagent',
    yLabel: 'subagents',
    bars: tokenDistributionBars(r),
    fill: COLOR.tokens,
    format: formatInt,
    empty: 'No settled subagent reported its token usage.',
  });
  const byType = groupChart(
    'tokens-by-subagent-type',
    'Total tokens by subagent_type',
    tokenGroupBars(r.tokens.by_subagent_type, 'subagent_type', '(not reported)'),
  );
  const byModel = groupChart('tokens-by-model', 'Total tokens by model', tokenGroupBars(r.tokens.by_model, 'model', '(not reported)'));
  const legend = markup`<p class="legend-row" id="tokens-legend"><span class="legend"><span class="swatch tokens"></span>measured: reported total_tokens</span><span class="legend"><span class="swatch unmeasured"></span>unmeasured: total_tokens NULL, its usage unknown (not 0)</span></p>`;
  return markup`<section class="panel" id="tokens"><h2>Tokens of settled subagents</h2>
<p class="lead">A subagent that reported no usage (total_tokens NULL) is <b>unmeasured</b>, never 0: totals and means cover measured subagents only, and the hatched strips show how many settled subagents each total does not cover. ${plural(r.tokens.outstanding, 'subagent')} had not settled and ${r.tokens.outstanding === 1 ? 'is' : 'are'} not included. Groups beyond the ${GROUP_LIMIT} largest are summed into one "others" bar (the JSON lists every group).</p>
${tokenTable(r)}
${legend}
<div class="charts">${distribution}${byType}${byModel}</div></section>`;
}

export function provenancePanel(r: SubagentContextReport): Html {
  const p = r.provenance;
  const x = r.executions;
  const chart = horizontalBarChart({
    id: 'provenance',
    title: 'Rows by provenance',
    xLabel: 'subagent rows in the window',
    yLabel: '',
    bars: [
      { label: 'live', value: p.live, fill: COLOR.live },
      { label: 'backfill', value: p.backfill, fill: COLOR.backfill },
    ],
    fill: COLOR.live,
    format: formatInt,
    empty: 'No subagent row in the window.',
  });
  const distinct = x.distinct === null ? 'not counted: execution_since is absent, so no execution id is an identity' : formatInt(x.distinct);
  return markup`<section class="panel" id="provenance"><h2>Provenance and executions</h2>
<p class="lead">Backfilled rows were rebuilt from what survived in message metadata; they are shown apart from live rows and are not comparable like-for-like.</p>
<div class="charts">${chart}
<div class="table-wrap"><table><tbody>
<tr><td>distinct executions (excluding 'unknown')</td><td>${distinct}</td></tr>
<tr><td>rows with an execution id</td><td>${formatInt(x.identified_rows)}</td></tr>
<tr><td>rows with 'unknown' (unrecorded, never one execution)</td><td>${formatInt(x.unknown_rows)}</td></tr>
<tr><td>… of which backfilled</td><td>${formatInt(x.unknown_backfill_rows)}</td></tr>
<tr><td>… of which live since execution_since</td><td>${x.unknown_live_rows_since_execution_since === null ? '—' : formatInt(x.unknown_live_rows_since_execution_since)}</td></tr>
<tr><td>live rows before capture_since</td><td>${p.live_before_capture_since === null ? '—' : formatInt(p.live_before_capture_since)}</td></tr>
</tbody></table></div></div></section>`;
}

export function notesSection(r: SubagentContextReport): Html {
  const items = r.caveats.length
    ? joinHtml(
        r.caveats.map((c) => markup`<li>${t(plainWords(c))}</li>`),
        '\n',
      )
    : markup`<li>None of the reading rules limits these figures for this store and window.</li>`;
  return markup`<section class="notes" id="caveats"><h2>Notes: how to read these figures</h2><ol>
${items}
</ol><p class="about">${NOTES_EXPLAINED}, and says what each figure counts.</p></section>`;
}
