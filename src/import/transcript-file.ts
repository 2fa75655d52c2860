// Reads one transcript from its progress to its last complete line, for any importer: each
// line parsed as JSON and handed over, a malformed line counted and skipped (one WARN per file
// and run, with the count and the first line number: never fatal), and the caller's flush
// called every FLUSH_LINES lines and once at the end with the progress up to the last line taken,
// so a huge transcript is written in bounded pieces and a crash resumes from the last piece.
import { stat } from 'node:fs/promises';
import type { Logger } from '../types.js';
import { readCompleteLines } from './line-reader.js';
import type { TranscriptProgress } from './import-store.js';

export const FLUSH_LINES = 20_000;
const BOM = 0xfeff;

export type JsonObject = Record<string, unknown>;

export interface TranscriptReadResult {
  /** Bytes and lines taken this run. */
  bytes: number;
  lines: number;
  malformed: number;
  /** The file is shorter than the progress says (rewritten or truncated): left alone. */
  shrunk: boolean;
}

export interface TranscriptConsumer {
  line(value: JsonObject): void;
  /** Writes what the lines since the last flush produced, with this progress, in one transaction; `last`: the run's final flush. */
  flush(progress: TranscriptProgress, last: boolean): Promise<void>;
}

export async function consumeTranscript(
  path: string,
  progress: TranscriptProgress,
  consumer: TranscriptConsumer,
  logger: Logger,
  flushLines = FLUSH_LINES,
): Promise<TranscriptReadResult> {
  const result: TranscriptReadResult = { bytes: 0, lines: 0, malformed: 0, shrunk: false };
  const size = (await stat(path)).size;
  if (size < progress.byteOffset) {
    logger.warn({ path, size, imported_bytes: progress.byteOffset }, 'transcript is shorter than what was imported from it: left as imported');
    return { ...result, shrunk: true };
  }
  if (size === progress.byteOffset) return result;
  const start = progress.byteOffset;
  let sinceFlush = 0;
  let firstMalformed: number | null = null;
  let atStart = start === 0;
  for await (const line of readCompleteLines(path, start)) {
    const { end } = line;
    // A byte order mark before the file's first line (an editor's, never the agent's) is no part of it.
    const text = atStart && line.text.charCodeAt(0) === BOM ? line.text.slice(1) : line.text;
    atStart = false;
    progress.lines++;
    result.lines++;
    let value: unknown;
    try {
      value = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      value = null;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      if (value !== undefined) {
        progress.malformedLines++;
        result.malformed++;
        firstMalformed ??= progress.lines;
      }
    } else consumer.line(value as JsonObject);
    progress.byteOffset = end;
    if (++sinceFlush >= flushLines) {
      await consumer.flush(progress, false);
      sinceFlush = 0;
    }
  }
  result.bytes = progress.byteOffset - start;
  await consumer.flush(progress, true);
  if (result.malformed)
    logger.warn({ path, malformed_lines: result.malformed, first_line: firstMalformed }, 'transcript lines that are not JSON objects were skipped');
  return result;
}
