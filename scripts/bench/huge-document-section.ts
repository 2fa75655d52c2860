// The backfill's memory on one hostile document (issue 16 item 11): runMigrations() on a small
// store holding one 50 MB metadata document, in a child process per case (huge-document-worker.ts)
// so each peak RSS is that run's alone. No ceiling to divide by: the figure is the peak itself,
// held to a bound stated as a multiple of the document.
import { join } from 'node:path';
import type { Finding } from './findings.js';
import type { HugeDocumentMeasurement } from './huge-document-worker.js';
import { runWorker } from './run-worker.js';
import { fmtInt, fmtMs } from './stats.js';
import { byDialect, type DialectName } from '../../src/dialect.js';

const mb = (kb: number) => `${fmtInt(kb / 1024)} MB`;
/** The bound: peak growth over the baseline within this multiple of the document's size. */
const BOUND = 12;

export async function hugeDocumentSection(cacheDir: string, dialect: DialectName, serverUrl?: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const field of ['description', 'result_text']) {
    const location = byDialect(dialect, { sqlite: join(cacheDir, 'huge-document.db'), postgres: serverUrl! });
    const args = ['--dialect', dialect, '--location', location, '--field', field];
    await runWorker('huge-document-worker.ts', [...args, '--phase', 'prepare'], { returnsNothing: true });
    const m = (await runWorker<HugeDocumentMeasurement>('huge-document-worker.ts', [...args, '--phase', 'measure']))!;
    const growthKb = m.peakRssKb - m.baselineRssKb;
    const multiple = (growthKb * 1024) / m.documentBytes;
    findings.push({
      section: 'hostile document',
      dialect,
      config: `one ${fmtInt(m.documentBytes / 1024 / 1024)} MB metadata document (the bulk in ${field === 'description' ? 'description, copied into the row' : 'result_text, never read'}) among 20 ordinary ones`,
      measured: `runMigrations() ${fmtMs(m.ms)}, ${m.rows} rows${m.ok ? '' : ' — NOT ok'}; peak RSS ${mb(m.peakRssKb)} (${mb(m.baselineRssKb)} before it)${m.serverPeakRssKb ? `, server backend ${mb(m.serverPeakRssKb)}` : ''}`,
      ceiling: 'the document’s size',
      figure: m.ok && m.rows === 21 ? multiple : Number.NaN,
      figureText: `${multiple.toFixed(1)}× the document`,
      target: { kind: 'at-most', value: BOUND, text: `bounded (≤ ${BOUND}× the document)` },
      detail:
        'figure = growth of the measuring process over runMigrations() alone (VmHWM reset before it) ÷ the document; proportional to the largest document, never to the store',
    });
  }
  return findings;
}
