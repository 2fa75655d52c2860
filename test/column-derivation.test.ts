// A column in one place (docs/recipes.md, "Add a column"): every list a column must be in is
// derived from the tagged DDL (scripts/lib/column-rules.ts), and these tests fail when a column
// is missing from any of them — the statements' INSERT and SET lists, the batch record, the
// backfill's extraction and lists, the host-object lists, the list statements' row, and the
// TypeScript that carries a frame (normalization, the upsert's parameters, the batch record,
// the merge rules a coalescing must keep). The last test adds a column to a copy of the DDL and
// finds it in every derived list, so a derivation that stopped following the DDL fails here.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inputsByRule, subagentColumnRules } from '../generated/columns.js';
import * as postgresGenerated from '../generated/postgres/index.js';
import * as sqliteGenerated from '../generated/sqlite/index.js';
import { columnListProblems } from '../scripts/lib/check-column-lists.js';
import { renderColumnModule } from '../scripts/lib/column-module.js';
import { annotatedColumns, camel } from '../scripts/lib/column-rules.js';
import { DIALECTS, parseDialect, type Dialect, type ParsedQuery } from '../scripts/lib/query-files.js';
import { schemaScripts } from '../scripts/lib/schema-files.js';
import { blankComments } from '../scripts/lib/sql-lex.js';
import { roundParameter } from '../src/postgres/batch-rounds.js';
import { int64Text, normalizeFrame, upsertParameters, type UpsertInput } from '../src/frame-normalization.js';
import { mergePayload } from '../src/acp/payload-merge.js';

const generated = { sqlite: sqliteGenerated, postgres: postgresGenerated };
const table = (root: string, d: Dialect) => schemaScripts(root, 'package', d).find((s) => s.name === 'task_session_subagents')!;
const statement = (queries: readonly ParsedQuery[], name: string) => {
  const q = queries.find((x) => x.fileBase === name);
  if (!q) throw new Error(`no statement ${name}`);
  return blankComments(q.statement);
};
/** Every column `text` names as a whole word. */
const named = (text: string, columns: readonly string[]) => columns.filter((c) => new RegExp(String.raw`(?<!\w)${c}(?!\w)`).test(text));

/** The lists a column must be in, read from the expanded statements of one dialect. */
function derivedLists(queries: readonly ParsedQuery[], dialect: Dialect): Record<string, string> {
  const upsert = statement(queries, 'upsert_subagent_context');
  const backfill = statement(queries, 'backfill_subagent_contexts');
  const lists: Record<string, string> = {
    'upsert INSERT list': upsert.slice(0, upsert.indexOf(') VALUES')),
    'upsert SET list': upsert.slice(upsert.indexOf('DO UPDATE SET')),
    'backfill INSERT list': backfill.slice(backfill.lastIndexOf('INSERT INTO'), backfill.indexOf('SELECT', backfill.lastIndexOf('INSERT INTO'))),
    'backfill select list': backfill.slice(backfill.lastIndexOf('INSERT INTO')),
    'host-object column list': statement(queries, 'read_subagent_table_host_objects'),
    'list statement row': statement(queries, 'list_subagent_contexts_by_session'),
  };
  if (dialect === 'sqlite') {
    // SQLite's chunk computes its rows into a temp table ahead of its transaction; this inserts them.
    const keep = statement(queries, 'keep_backfill_rows');
    lists['backfill keep INSERT list'] = keep.slice(0, keep.indexOf('SELECT'));
    lists['backfill keep select list'] = keep.slice(keep.indexOf('SELECT'), keep.indexOf('FROM temp.'));
  }
  if (dialect === 'postgres') {
    const batch = statement(queries, 'upsert_subagent_contexts_batch');
    lists['batch INSERT list'] = batch.slice(0, batch.indexOf('SELECT'));
    lists['batch record'] = batch.slice(batch.indexOf('jsonb_to_recordset'), batch.indexOf('ON CONFLICT'));
    lists['batch SET list'] = batch.slice(batch.indexOf('DO UPDATE SET'));
  }
  return lists;
}

/** Which columns each list must hold. */
function wanted(list: string, columns: readonly { name: string; rule: string; text: boolean; from: unknown }[]): string[] {
  if (/SET list/.test(list)) return columns.filter((c) => c.rule !== 'key' && c.rule !== 'write-once').map((c) => c.name);
  if (list === 'batch record') return columns.filter((c) => c.from !== null).map((c) => c.name);
  if (list === 'backfill select list') return columns.filter((c) => c.text).map((c) => c.name); // the rest are written as values
  return columns.map((c) => c.name);
}

describe('every derived list holds every column of the DDL', () => {
  for (const dialect of DIALECTS) {
    it(`${dialect}: the statements' lists (expanded, as the database runs them)`, () => {
      const columns = annotatedColumns(table('.', dialect));
      const queries = parseDialect('.', dialect);
      for (const q of queries) expect(columnListProblems(q, columns), q.file).toEqual([]);
      for (const [list, text] of Object.entries(derivedLists(queries, dialect)))
        expect(named(text, wanted(list, columns)), `${dialect} ${list}`).toEqual(wanted(list, columns));
      // The backfill reads each text column from the message where the live path reads it from the frame.
      const parsed = statement(queries, 'backfill_subagent_contexts');
      for (const c of columns.filter((x) => x.text)) expect(parsed, c.name).toMatch(new RegExp(String.raw`END AS ${c.name}\b`));
      expect(generated[dialect].subagentColumns).toEqual(columns.map((c) => c.name));
    });
  }

  it('the TypeScript side: normalization, the upsert parameters, the batch record and the merge rules carry every reported column', () => {
    const text = subagentColumnRules.filter((c) => c.text);
    expect(text.length).toBeGreaterThan(5);
    const frame: Record<string, unknown> = { sessionId: 's', taskId: 't', toolCallId: 'tc', payload: {} };
    for (const c of text) (c.from!.object === 'frame' ? frame : (frame.payload as Record<string, unknown>))[c.from!.field] = `v ${c.column}`;
    const input = normalizeFrame(frame)!;
    const params = upsertParameters(input, 'at', int64Text) as Record<string, unknown>;
    const [record] = JSON.parse(roundParameter([{ input, observedAtNs: 1n }], () => 'at')) as Record<string, unknown>[];
    for (const c of text) {
      expect((input as unknown as Record<string, unknown>)[c.input!], c.column).toBe(`v ${c.column}`);
      expect(params[camel(c.column)], c.column).toBe(`v ${c.column}`);
      expect(record[c.column], c.column).toBe(`v ${c.column}`);
    }
    // Every reported column is an UpsertInput field, under exactly one rule a coalescing must keep.
    const reported = subagentColumnRules.filter((c) => c.input !== null);
    expect(Object.values(inputsByRule).flat().sort()).toEqual(reported.map((c) => c.input).sort());
    for (const c of reported) expect(Object.keys(input as UpsertInput), c.column).toContain(c.input);
    expect(Object.keys(record).sort()).toEqual(['id', ...reported.map((c) => c.column), 'observed_at'].sort());
  });

  it("the ACP recognizer's per-call merge keeps every payload field a text column stores (a hand-kept list there dropped a new one)", () => {
    const fields = subagentColumnRules.filter((c) => c.text && c.from?.object === 'payload').map((c) => c.from!.field);
    expect(fields.length).toBeGreaterThan(5);
    const value = (prefix: string) => Object.fromEntries(fields.map((f) => [f, `${prefix} ${f}`]));
    const learned = mergePayload({}, value('first'));
    expect(mergePayload(learned, {})).toEqual(value('first')); // an update that says nothing of them blanks none
    expect(mergePayload(learned, value('later'))).toEqual(value('later'));
  });
});

describe('a column added to the DDL reaches every derived list (a scratch copy of schema/ and queries/)', () => {
  const work = mkdtempSync(join(tmpdir(), 'subagent-context-column-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  for (const dir of ['schema', 'queries']) cpSync(dir, join(work, dir), { recursive: true });
  for (const d of DIALECTS) {
    const file = join(work, 'schema', d, '002_task_session_subagents.sql');
    const ddl = readFileSync(file, 'utf8');
    const anchor = ddl.split('\n').find((l) => l.startsWith('  model '))!;
    writeFileSync(file, ddl.replace(anchor, `${anchor}\n  probe_note          TEXT,                       -- @replace @from payload.probe_note`));
  }

  for (const dialect of DIALECTS) {
    it(`${dialect}: the probe column is in every statement list, with no statement edited`, () => {
      const columns = annotatedColumns(table(work, dialect));
      expect(columns.find((c) => c.name === 'probe_note')).toMatchObject({ rule: 'replace', text: true, from: { object: 'payload', field: 'probe_note' } });
      const queries = parseDialect(work, dialect);
      for (const q of queries) expect(columnListProblems(q, columns), q.file).toEqual([]);
      for (const [list, text] of Object.entries(derivedLists(queries, dialect)))
        expect(named(text, ['probe_note']), `${dialect} ${list}`).toEqual(['probe_note']);
      expect(statement(queries, 'upsert_subagent_context')).toContain(':probeNote');
      expect(statement(queries, 'upsert_subagent_context')).toContain('probe_note = COALESCE(excluded.probe_note, task_session_subagents.probe_note)');
      expect(statement(queries, 'backfill_subagent_contexts')).toMatch(/normalized[.,]subagent_task[.,]probe_note/);
      // A hand-written list that misses it fails codegen's check (and the database's prepare).
      const upsert = queries.find((q) => q.fileBase === 'upsert_subagent_context')!;
      const withoutDerived = { file: upsert.file, statement: upsert.statement.replace(/,\s*probe_note\b/, '') };
      expect(columnListProblems(withoutDerived, columns)).toEqual([`${upsert.file}: the INSERT column list misses probe_note`]);
    });
  }

  it('the generated TypeScript module carries it: types, reader, parameters, batch record, rules', () => {
    const module = renderColumnModule('schema/sqlite/002_task_session_subagents.sql', annotatedColumns(table(work, 'sqlite')));
    for (const line of [
      '  probeNote: string | null;',
      '  probe_note: string | null;',
      '    probeNote: read(payload, "probe_note"),',
      '    probeNote: input.probeNote,',
      '    probe_note: input.probeNote,',
      '{ column: "probe_note", rule: "replace", from: { object: "payload", field: "probe_note" }, input: "probeNote", text: true }',
      '  probe_note?: string;', // PayloadTextFields: SubagentTaskPayload's field
    ])
      expect(module).toContain(line);
    expect(module).toMatch(/"replace": \[[^\]]*"probeNote"/);
    expect(module).toMatch(/export const payloadTextFields = \[[^\]]*"probe_note"/); // the recognizer's merge
  });
});

describe("codegen's column check can fail", () => {
  const columns = annotatedColumns(table('.', 'sqlite'));
  const q = (sql: string) => ({ file: 'q.sql', statement: sql });
  const all = columns.map((c) => c.name).join(', ');
  it('names a column an INSERT list misses or repeats, and a key or write-once column in the SET list', () => {
    expect(columnListProblems(q(`INSERT INTO task_session_subagents (${all}) VALUES (1)`), columns)).toEqual([]);
    expect(columnListProblems(q(`INSERT INTO task_session_subagents (${all.replace('model, ', '')}) VALUES (1)`), columns)).toEqual([
      'q.sql: the INSERT column list misses model',
    ]);
    expect(columnListProblems(q(`INSERT INTO task_session_subagents (${all}, model) VALUES (1)`), columns)).toEqual([
      'q.sql: the INSERT column list names model twice',
    ]);
    const set = columns
      .filter((c) => c.rule !== 'key' && c.rule !== 'write-once')
      .map((c) => `${c.name} = excluded.${c.name}`)
      .join(', ');
    const upsert = (s: string) => q(`INSERT INTO task_session_subagents (${all}) VALUES (1) ON CONFLICT (a) DO UPDATE SET ${s}`);
    expect(columnListProblems(upsert(set), columns)).toEqual([]);
    expect(columnListProblems(upsert(`${set}, task_id = excluded.task_id`), columns)).toEqual(['q.sql: DO UPDATE SET names task_id, which it must not']);
    expect(columnListProblems(upsert(set.replace(/tool_status = excluded\.tool_status, /, '')), columns)).toEqual(['q.sql: DO UPDATE SET misses tool_status']);
  });

  it('a DDL line without a merge tag, or with two, fails codegen naming the column', () => {
    const script = table('.', 'sqlite');
    const untagged = { ...script, sql: script.sql.replace(/(\n {2}model\s+TEXT,\s*)-- @replace/, '$1-- ') };
    expect(() => annotatedColumns(untagged)).toThrow(/model: no merge tag/);
    const twice = { ...script, sql: script.sql.replace('-- @replace @from payload.model', '-- @replace @sticky @from payload.model') };
    expect(() => annotatedColumns(twice)).toThrow(/model: more than one merge tag/);
  });
});
