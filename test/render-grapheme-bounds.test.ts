// A label's size is bounded by the columns it may take, whatever it holds. Clipping counts
// grapheme clusters, and one cluster can be arbitrarily long: 'a' followed by 100,000 U+0301
// is one column, and was printed whole (a 403 KB terminal report, a 2.4 MB page, for one such
// subagent_type and model). Now a cluster keeps its first GRAPHEME_POINTS code points and then
// `…`, and a clipped label at most LABEL_UNITS_PER_COLUMN code units per column, on both views.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatReport, renderReportHtml } from '../src/index.js';
import { formatKeyInstant } from '../src/instant.js';
import { clipVisible, displayWidth, GRAPHEME_POINTS, LABEL_UNITS_PER_COLUMN } from '../src/render/display-text.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const MARK = '\u0301';
const ZALGO = 'a' + MARK.repeat(100_000);
/** Marks in a row that a kept cluster can hold: the base and GRAPHEME_POINTS - 1 of them. */
const TOO_MANY_MARKS = new RegExp(`${MARK}{${GRAPHEME_POINTS}}`);

describe('clipVisible: code points per grapheme and code units per label', () => {
  it('cuts one huge cluster to its base and a few marks, then …', () => {
    expect(clipVisible(ZALGO, 28)).toBe(`a${MARK.repeat(GRAPHEME_POINTS - 1)}…`);
    expect(clipVisible(`${ZALGO}b`, 28)).toBe(`a${MARK.repeat(GRAPHEME_POINTS - 1)}…b`);
    expect(displayWidth(clipVisible(ZALGO, 28))).toBe(2);
  });

  it('keeps every ordinary cluster whole: an emoji family with skin tones, a flag, stacked marks', () => {
    const family = '👨🏻‍👩🏻‍👧🏻‍👦🏻'; // 11 code points
    expect(Array.from(family)).toHaveLength(11);
    for (const label of [family, '🇯🇵', 'tiếng Việt', `e${MARK}\u0323`]) expect(clipVisible(label, 28)).toBe(label);
  });

  it('a label of many long clusters stops at its code-unit budget, ending in …', () => {
    const cluster = 'a' + MARK.repeat(GRAPHEME_POINTS - 1); // kept whole, 12 code units
    const clipped = clipVisible(cluster.repeat(28), 28);
    expect(clipped.length).toBeLessThanOrEqual(28 * LABEL_UNITS_PER_COLUMN);
    expect(clipped.endsWith('…')).toBe(true);
    expect(clipped.startsWith(cluster.repeat(10))).toBe(true);
    expect(displayWidth(clipped)).toBeLessThanOrEqual(28);
  });
});

const T0 = 1_785_000_000_000_000_000n;

describeBothDialects('report views: a huge grapheme cluster in subagent_type and model', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-s1');
    await setKeys(db, { [KEY.captureSince]: formatKeyInstant(T0), [KEY.backfillThrough]: '', [KEY.executionSince]: formatKeyInstant(T0) });
    for (const [id, label] of [
      ['r1', ZALGO],
      ['r2', `${ZALGO}b`],
      ['r3', ('x' + MARK.repeat(GRAPHEME_POINTS - 1)).repeat(5_000)],
    ])
      await insertSubagentRow(db, {
        id,
        sessionId: 's1',
        turnId: 't1',
        executionId: `e-${id}`,
        observedAt: hostTimestamp(db, T0 + SECOND),
        settledAt: hostTimestamp(db, T0 + 2n * SECOND),
        totalTokens: 1234,
        subagentType: label,
        model: label,
      });
  });
  afterEach(async () => db.close());

  it('the terminal text and the page stay small, and no cluster keeps more than its share of marks', async () => {
    const r = await db.store().report();
    expect(r.tokens.by_subagent_type.map((g) => g.subagent_type)).toContain(`${ZALGO}b`); // the JSON is exact
    const text = formatReport(r);
    const page = renderReportHtml(r, { generatedAt: new Date(0) });
    // Before: 403 KB of text and a 2.4 MB page for the first label alone. Now each label is at
    // most its columns' worth: 28 in the terminal, 160 (x 8 code units) in a page's tooltip.
    expect(Buffer.byteLength(text)).toBeLessThan(6_000);
    expect(Buffer.byteLength(page)).toBeLessThan(60_000);
    for (const view of [text, page]) {
      expect(view).not.toMatch(TOO_MANY_MARKS);
      expect(view).toContain(`a${MARK.repeat(GRAPHEME_POINTS - 1)}…`);
    }
  });
});
