// Numbers in text a person reads: the human views (terminal report, health, the HTML page, the
// demo) and the sentences of the report's caveats (src/report/caveats.ts). en-US digit grouping
// whatever the host's locale, so the same report reads the same everywhere and the tests can
// compare text. The figures of the report's JSON never go through here; they keep exact values.

/** 1234567 -> "1,234,567" (a fraction is rounded away). */
export const formatInt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

/** Exactly `digits` fraction digits: formatFixed(2.5, 1) -> "2.5", formatFixed(1234, 2) -> "1,234.00". */
export const formatFixed = (n: number, digits: number) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A ratio with two fraction digits, or "—" when there is none (no denominator). */
export const formatRatio = (n: number | null) => (n === null ? '—' : formatFixed(n, 2));

/** "1 card", "2,000 cards"; `many` for an irregular plural ("subagent launches"). */
export const plural = (n: number, one: string, many = `${one}s`) => `${formatInt(n)} ${n === 1 ? one : many}`;
