// Human-readable migration output: one line per step, then the result. `--json` prints the
// MigrationReport itself instead. A step's error may quote the database (a key value, a
// host's trigger message): made visible like every human view (src/render/display-text.ts).
import { visibleLines } from './display-text.js';
import { plainWords } from './notes.js';
import type { MigrationReport } from '../types.js';

export function formatMigration(report: MigrationReport, where: string): string {
  const lines = [`subagent-context migrate: ${where}`];
  for (const step of report.steps) {
    const note = step.error ?? step.detail;
    const why = note ? `  ${plainWords(note.replace(/\s*\n\s*/g, ' '))}` : '';
    lines.push(`  ${step.status.padEnd(8)} ${step.name}  ${Math.round(step.ms * 10) / 10} ms${why}`);
  }
  const failed = report.steps.filter((s) => s.status === 'failed').length;
  lines.push(
    report.ok
      ? `result: ok (${report.steps.length} step${report.steps.length === 1 ? '' : 's'})`
      : `result: FAILED (${failed} of ${report.steps.length} steps failed; the next run retries them)`,
  );
  return visibleLines(`${lines.join('\n')}\n`);
}
