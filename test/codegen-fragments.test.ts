// SQL fragments (scripts/lib/codegen-fragments.ts): one source per dialect under
// queries/<dialect>/fragments/, included as {{name(argument)}} and expanded by codegen. These
// tests replace the old pin of inlined copies: they prove that every statement passes the
// literal-copy check, that the includes sit where the rules need them on both dialects, that
// the committed generated SQL is the expansion, that the constants a fragment shares with
// TypeScript agree, and that the checker itself fails on what it must catch.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listSubagentContextsByTurn } from '../generated/sqlite/index.js';
import { applyFragment, expandIncludes, literalCopyProblems, loadFragments } from '../scripts/lib/codegen-fragments.js';
import { DIALECTS, parseDialect } from '../scripts/lib/query-files.js';
import { MAX_ID_BYTES } from '../src/identity.js';

const fragments = { sqlite: loadFragments('.', 'sqlite'), postgres: loadFragments('.', 'postgres') };
const fragment = (dialect: keyof typeof fragments, name: string) => {
  const f = fragments[dialect].get(name);
  if (!f) throw new Error(`no ${dialect} fragment ${name}`);
  return f;
};
const source = (file: string) => readFileSync(file, 'utf8');

describe('the statements under queries/ and their fragments', () => {
  it('both dialects define the fragments the rules need', () => {
    // The column lists derived from the DDL's tags (scripts/lib/column-fragments.ts) are fragments too.
    const derived = ['column_literals', 'merge_rules', 'text_columns', 'text_from_metadata', 'text_parameters'];
    expect([...fragments.sqlite.keys()].sort()).toEqual(
      [
        'before_since_text',
        'metadata_or_empty',
        'prefiltered_metadata_or_empty',
        'positive_metric',
        'prefiltered_valid_json',
        'recordable_id',
        'session_active_in_window',
        'shadowed_backfill',
        'subagent_prefilter',
        'subagent_row',
        'utc9',
        ...derived,
      ].sort(),
    );
    expect([...fragments.postgres.keys()].sort()).toEqual(
      [
        'instant_in_range',
        'jsonb_or_empty',
        'metadata_or_empty',
        'nul_strings_as_null',
        'positive_metric',
        'prefiltered_metadata_or_empty',
        'recordable_id',
        'session_active_in_window',
        'shadowed_backfill',
        'subagent_prefilter',
        'subagent_row',
        'text_record', // jsonb_to_recordset's column definitions (SQLite has no batch statement)
        'valid_jsonb', // PostgreSQL's validity test (SQLite's json_valid is built in)
        ...derived,
      ].sort(),
    );
  });

  it('every statement parses with its includes expanded and writes no fragment out literally (codegen would fail)', () => {
    for (const d of DIALECTS) expect(parseDialect('.', d).length).toBeGreaterThan(20);
  });

  it('the includes sit where one definition must serve the writer, the backfill and the health check', () => {
    const expected: Record<string, string[]> = {
      'queries/sqlite/count_shortfall_since_capture.sql': [
        '{{utc9(e.created_at)}}',
        '{{utc9(s.observed_at)}}',
        '{{prefiltered_metadata_or_empty(m.metadata)}}',
        '{{recordable_id(e.task_session_id)}}',
        '{{recordable_id(e.task_id)}}',
        '{{recordable_id(e.tool_call_id)}}',
        '{{before_since_text(m.created_at)}}',
        '{{before_since_text(s.observed_at)}}',
        '{{subagent_prefilter(m.metadata)}}',
      ],
      'queries/sqlite/backfill_subagent_contexts.sql': ['{{utc9(m.updated_at)}}', '{{recordable_id(p.tool_call_id)}}', '{{recordable_id(m.turn_id)}}'],
      'queries/sqlite/read_backfill_through.sql': ['{{prefiltered_metadata_or_empty(n.metadata)}}', '{{recordable_id(c.tool_call_id)}}'],
      'queries/sqlite/list_subagent_contexts_by_turn.sql': ['{{subagent_row(s)}}', '{{utc9(s.observed_at)}}'],
      'queries/postgres/list_subagent_contexts_by_session.sql': ['{{subagent_row(s)}}'],
      'queries/postgres/count_excess_since_capture.sql': ['{{metadata_or_empty(m.metadata)}}'],
      'queries/postgres/backfill_subagent_contexts.sql': [
        '{{subagent_prefilter(m.metadata)}}',
        '{{recordable_id(p.task_session_id)}}',
        '{{recordable_id(c.turn_id)}}',
      ],
      'queries/postgres/read_backfill_through.sql': ['{{recordable_id(d.tool_call_id)}}'],
      'queries/postgres/count_shortfall_since_capture.sql': [
        '{{recordable_id(e.task_session_id)}}',
        '{{recordable_id(e.task_id)}}',
        '{{recordable_id(e.tool_call_id)}}',
      ],
    };
    for (const [file, includes] of Object.entries(expected)) for (const inc of includes) expect(source(file), `${file} ${inc}`).toContain(inc);
  });

  it('subagent_row is derived from the DDL: every column, the timestamps in the output form', () => {
    for (const d of DIALECTS) expect(fragment(d, 'subagent_row').file, d).toBe(`schema/${d}/002_task_session_subagents.sql`);
    const sqlite = fragment('sqlite', 'subagent_row').body;
    // A stored value that reads as no instant comes back marked, with its text (src/rows.ts names the row).
    expect(sqlite).toContain(
      `COALESCE(replace(substr({{utc9(x.settled_at)}}, 1, 26), ' ', 'T') || 'Z', 'unreadable instant: ' || x.settled_at) AS "settled_at?::string"`,
    );
    expect(sqlite).toContain(
      `COALESCE(replace(substr({{utc9(x.observed_at)}}, 1, 26), ' ', 'T') || 'Z', 'unreadable instant: ' || x.observed_at) AS "observed_at!::string"`,
    );
    expect(fragment('postgres', 'subagent_row').body).toContain(
      `COALESCE(to_char(x.updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'unreadable instant: ' || x.updated_at::text) AS "updated_at!"`,
    );
    expect(sqlite.split(',\n').map((c) => c.trim())).toContain('x.child_session_id');
  });

  it('the committed generated SQL is the expansion (marker comment, then the fragment on its argument)', () => {
    expect(listSubagentContextsByTurn.sql).toContain(`/* utc9(s.settled_at) */ ${applyFragment(fragment('sqlite', 'utc9'), 's.settled_at')}`);
    expect(listSubagentContextsByTurn.sql).not.toContain('{{');
  });

  it("recordable_id's length is src/identity.ts's MAX_ID_BYTES on both dialects", () => {
    for (const d of DIALECTS) {
      const lengths = [...fragment(d, 'recordable_id').body.matchAll(/<= (\d+)/g)].map((m) => Number(m[1]));
      expect(lengths, d).toEqual([MAX_ID_BYTES]);
    }
  });

  it('docs/timestamps.md shows exactly the utc9 fragment', () => {
    const blocks = [...source('docs/timestamps.md').matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => b.includes("'.0123456789'"));
    expect(blocks).toHaveLength(1);
    expect(blocks[0].replace(/\s+/g, ' ').trim()).toBe(fragment('sqlite', 'utc9').body);
  });
});

describe('the fragment checker and expander (so the checks above can fail)', () => {
  const sqlite = fragments.sqlite;
  const utc9 = (arg: string) => applyFragment(fragment('sqlite', 'utc9'), arg);
  const statement = (body: string) => `/*\n * header\n */\n/* @name q */\nSELECT 1 FROM t AS s\n WHERE ${body};`;

  it('expands an include to its marker and body, parenthesizing an argument that is not a plain name', () => {
    const { text, includes } = expandIncludes('q.sql', statement('{{utc9(s.observed_at)}} >= :since!'), sqlite);
    expect(text).toContain(`WHERE /* utc9(s.observed_at) */ ${utc9('s.observed_at')} >= :since!;`);
    expect(includes).toEqual([{ fragment: 'utc9', arg: 's.observed_at', line: 6 }]);
    expect(utc9('s.observed_at')).toContain('substr(s.observed_at, 1, 19)');
    expect(utc9("s.a || 'Z'")).toContain("substr((s.a || 'Z'), 1, 19)");
  });

  it('names file and line of a fragment written out literally, also when wrapped at its spaces', () => {
    const wrapped = utc9('s.observed_at').replace(" || '.' || ", "\n    || '.' ||\n    ");
    for (const copy of [utc9('s.observed_at'), wrapped, utc9('s.observed_at').slice(1, -1)]) {
      expect(literalCopyProblems('q.sql', statement(`s.a = 1\n   AND ${copy} >= :since!`), sqlite)).toEqual([
        "q.sql:7: utc9's text written out: write {{utc9(s.observed_at)}}",
      ]);
    }
  });

  it('finds a drifted copy by its anchors, and ignores the text inside a comment', () => {
    const drifted = utc9('s.a').replace("'000000000', 1, 9", "'000000000', 1, 6");
    expect(literalCopyProblems('q.sql', statement(drifted), sqlite)).toEqual([
      `q.sql:6: "'.0123456789'" outside an include: it belongs to {{utc9(…)}}`,
      `q.sql:6: "'.0123456789'" outside an include: it belongs to {{utc9(…)}}`,
      `q.sql:6: "'000000000'" outside an include: it belongs to {{utc9(…)}}`,
    ]);
    expect(literalCopyProblems('q.sql', statement(`s.a = 1 -- ${utc9('s.a')}\n`), sqlite)).toEqual([]);
  });

  it('finds the PostgreSQL recordable id written out, and the metadata guard by its function call', () => {
    const pg = fragments.postgres;
    const id = applyFragment(fragment('postgres', 'recordable_id'), 'p.tool_call_id');
    expect(literalCopyProblems('q.sql', statement(id), pg)).toEqual(["q.sql:6: recordable_id's text written out: write {{recordable_id(p.tool_call_id)}}"]);
    const guard = statement(`(CASE WHEN m.metadata = '' THEN '{}' ELSE m.metadata END)::jsonb = pg_input_is_valid(m.metadata, 'jsonb')`);
    expect(literalCopyProblems('q.sql', guard, pg)).toEqual(['q.sql:6: "pg_input_is_valid(" outside an include: it belongs to {{valid_jsonb(…)}}']);
    // The function's name quoted as text (the shape probe's to_regprocedure) is no copy.
    expect(literalCopyProblems('q.sql', statement(`to_regprocedure('pg_input_is_valid(text, text)') IS NOT NULL`), pg)).toEqual([]);
  });

  it('rejects an unknown fragment, a malformed include, and a prefiltered fragment without its prefilter', () => {
    expect(() => expandIncludes('q.sql', statement('{{utc10(s.a)}} > 0'), sqlite)).toThrow(/^q\.sql:6: \{\{utc10\(…\)\}\} names no fragment/);
    expect(() => expandIncludes('q.sql', statement('{{utc9 s.a}} > 0'), sqlite)).toThrow(/^q\.sql:6: an include is written \{\{fragment\(argument\)\}\}/);
    expect(() => expandIncludes('q.sql', statement('{{prefiltered_valid_json(m.metadata)}}'), sqlite)).toThrow(
      'q.sql:6: prefiltered_valid_json(m.metadata) is used without {{subagent_prefilter(m.metadata)}} in the same statement',
    );
    expect(() => expandIncludes('q.sql', statement('{{subagent_prefilter(m.metadata)}} AND {{prefiltered_valid_json(m.metadata)}}'), sqlite)).not.toThrow();
  });
});
