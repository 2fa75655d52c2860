// The tee's pure parts, in-process (no database involved, so no dialect): the line tap cuts a
// byte stream into exactly the lines a newline-splitter would, however the chunks fall, skips
// oversize lines without holding them; the queue drops the OLDEST line when full, by count and
// by bytes, and counts it; the default store's folder follows each platform's convention.
import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../src/proxy/data-dir.js';
import { LineTap } from '../src/proxy/line-tap.js';
import { TeeQueue } from '../src/proxy/tee-queue.js';

function tapLines(chunks: Buffer[], maxLineBytes = 1 << 20, wanted = (_: Buffer) => true) {
  const lines: string[] = [];
  let oversize = 0;
  const tap = new LineTap({ maxLineBytes, wanted, onLine: (l) => lines.push(l.toString('latin1')), onOversize: () => void oversize++ });
  for (const c of chunks) tap.push(c);
  return { lines, oversize };
}

describe('proxy: line tap', () => {
  it('yields the same lines whatever the chunking, a multi-byte character or a line split anywhere', () => {
    const text = Buffer.from('{"a":1}\n{"b":"ü✓🚀"}\n\n{"c":[1,2,3]}\npartial-without-newline', 'utf8');
    const expected = ['{"a":1}', '{"b":"ü✓🚀"}', '{"c":[1,2,3]}'].map((l) => Buffer.from(l, 'utf8').toString('latin1'));
    for (let size = 1; size <= text.length; size++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < text.length; at += size) chunks.push(text.subarray(at, at + size));
      expect(tapLines(chunks).lines, `chunks of ${size}`).toEqual(expected);
    }
  });

  it('hands out copies: a relayed chunk reused afterwards does not change a line', () => {
    const chunk = Buffer.from('{"x":1}\n');
    const { lines } = tapLines([chunk]);
    chunk.fill(0);
    expect(lines).toEqual(['{"x":1}']);
  });

  it('skips an oversize line whole (never holding it) and counts it; the next line is intact', () => {
    const big = Buffer.alloc(5000, 'y');
    const { lines, oversize } = tapLines([Buffer.from('{"a":1}\n'), big.subarray(0, 2000), big.subarray(2000), Buffer.from('\n{"b":2}\n')], 1000);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(oversize).toBe(1);
  });

  it('hands on only the lines `wanted` picks', () => {
    expect(tapLines([Buffer.from('keep 1\ndrop\nkeep 2\n')], 100, (l) => l.includes('keep')).lines).toEqual(['keep 1', 'keep 2']);
  });
});

describe('proxy: bounded queue', () => {
  const line = (n: number, size = 1) => ({ direction: 1 as const, bytes: Buffer.alloc(size, n) });

  it('drops the oldest line when full by count, and counts it', () => {
    const q = new TeeQueue(3, 1 << 20);
    for (let i = 0; i < 5; i++) q.push(line(i));
    expect(q.dropped).toBe(2);
    expect(q.takeAll().map((l) => l.bytes[0])).toEqual([2, 3, 4]);
    expect(q.length).toBe(0);
  });

  it('drops the oldest lines when full by bytes, keeping at least the newest', () => {
    const q = new TeeQueue(100, 10);
    q.push(line(1, 4));
    q.push(line(2, 4));
    q.push(line(3, 4));
    expect(q.takeAll().map((l) => l.bytes[0])).toEqual([2, 3]);
    q.push(line(4, 50)); // larger than the whole budget: kept alone
    expect(q.takeAll().map((l) => l.bytes[0])).toEqual([4]);
    expect(q.dropped).toBe(1);
  });

  it('take(n) hands out the oldest n and keeps the rest in order', () => {
    const q = new TeeQueue(100, 1 << 20);
    for (let i = 0; i < 5; i++) q.push(line(i));
    expect(q.take(2).map((l) => l.bytes[0])).toEqual([0, 1]);
    expect(q.take(10).map((l) => l.bytes[0])).toEqual([2, 3, 4]);
  });
});

describe('proxy: default data directory', () => {
  const home = '/home/u';
  it('Linux: $XDG_DATA_HOME when absolute, else ~/.local/share', () => {
    expect(defaultDataDir('linux', { XDG_DATA_HOME: '/data' }, home)).toBe('/data/subagent-context');
    expect(defaultDataDir('linux', { XDG_DATA_HOME: 'relative' }, home)).toBe('/home/u/.local/share/subagent-context');
    expect(defaultDataDir('linux', {}, home)).toBe('/home/u/.local/share/subagent-context');
  });
  it('macOS: ~/Library/Application Support', () => {
    expect(defaultDataDir('darwin', { XDG_DATA_HOME: '/data' }, home)).toBe('/home/u/Library/Application Support/subagent-context');
  });
  it('Windows: %LOCALAPPDATA%, else ~/AppData/Local', () => {
    expect(defaultDataDir('win32', { LOCALAPPDATA: '/c/Users/u/AppData/Local' }, home)).toBe('/c/Users/u/AppData/Local/subagent-context');
    expect(defaultDataDir('win32', {}, home)).toBe('/home/u/AppData/Local/subagent-context');
  });
});
