// The transcript line reader: complete lines only (a half-written last line is not a line
// yet), the byte offset after each, whatever the read size — lines longer than a read,
// multi-byte characters split across reads, CRLF, empty lines. No database: it reads files.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCompleteLines } from '../src/import/line-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'line-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function read(content: string, start = 0, chunk = 7) {
  const file = join(dir, `f-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, content);
  const out: { text: string; end: number }[] = [];
  for await (const line of readCompleteLines(file, start, chunk)) out.push(line);
  return out;
}

describe('readCompleteLines', () => {
  const content = '{"a":1}\n\n{"b":"é€😀 long enough to span reads"}\r\n{"c":';
  it.each([1, 2, 3, 7, 64, 1 << 20])('reads %i bytes at a time: complete lines, byte offsets, the half-written last line left', async (chunk) => {
    const lines = await read(content, 0, chunk);
    expect(lines.map((l) => l.text)).toEqual(['{"a":1}', '', '{"b":"é€😀 long enough to span reads"}']);
    expect(lines.map((l) => l.end)).toEqual([8, 9, Buffer.byteLength(content) - Buffer.byteLength('{"c":')]);
  });

  it('starts at a byte offset (where the last run stopped)', async () => {
    const lines = await read(content, 9, 5);
    expect(lines.map((l) => l.text)).toEqual(['{"b":"é€😀 long enough to span reads"}']);
  });

  it('reads what is appended while it reads, past the size the file had when it was opened', async () => {
    const file = join(dir, 'growing');
    writeFileSync(file, '{"first":1}\n');
    const line = `{"pad":"${'x'.repeat(1000)}"}\n`;
    const out: number[] = [];
    for await (const { text, end } of readCompleteLines(file, 0)) {
      // The first read is sized to the file as opened (64 KiB at least): 200 KB more arrive after it.
      if (out.length === 0) appendFileSync(file, line.repeat(200));
      expect(text).toBe(out.length === 0 ? '{"first":1}' : line.trimEnd());
      out.push(end);
    }
    expect(out).toEqual(Array.from({ length: 201 }, (_, i) => 12 + i * Buffer.byteLength(line)));
  });

  it('an empty file and a file of one unfinished line yield nothing', async () => {
    expect(await read('')).toEqual([]);
    expect(await read('{"half":')).toEqual([]);
  });
});
