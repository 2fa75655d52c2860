// One home for repeated SQL (issue 10, item 4). Some expressions are written out in many
// statements: SQLite's timestamp normal form "utc9" (docs/timestamps.md) and AC-23b's metadata
// normalization (NULL, '', 'null', invalid JSON -> '{}', DESIGN §2) with its text prefilter,
// and the recordable-identity predicate (src/identity.ts), whose length literal is built here
// from the TypeScript constant MAX_ID_BYTES: SQL cannot import it, so this pin is what keeps
// the writer, the backfill and the health shortfall on one limit.
// This file holds the ONE canonical text of each, per dialect, parameterized only by the
// expression it normalizes. Every copy in queries/ is preceded by a marker naming the fragment
// and its argument (`/* utc9(s.observed_at) */`), and this test fails, naming file and line,
// when a marked copy differs from the canonical text, when a fragment's distinctive
// sub-expression occurs outside a marked copy, or when a file's header does not say which
// fragments it uses. Files are found by walking queries/ recursively, so a statement added
// later (queries/<dialect>/demo/, report_*.sql) is covered the day it is written.
// Comparison is exact except that a space in the canonical text matches any run of
// whitespace: a copy may be wrapped at its spaces, nothing else may change.
//
// Why the copies are inlined and pinned rather than defined once in the schema:
// - SQLite's SQL cannot define a function. A better-sqlite3 application function would exist
//   only on the package's own connection: a DBA's sqlite3 shell could not run (or EXPLAIN) the
//   statements, nor could the host's process.
// - A view could not serve the copies on the host's task_session_messages (the backfill, the
//   shortfall and excess message sides, backfill_through; every metadata copy): DESIGN §3
//   allows the package no object on a host table but an optional index. So the pin is needed
//   whatever the schema does. A view over the package's own task_session_subagents would work
//   for the other utc9 copies (SQLite flattens it and the bare observed_at index still serves:
//   checked with EXPLAIN QUERY PLAN on SQLite 3.53), but it would be a second mechanism beside
//   the pin, a new schema object with an upgrade step on every existing store, and it would
//   have to survive the AC-33 rebuild.
// - PostgreSQL: the expensive part of the metadata normalization already lives once in the
//   schema (subagent_context_is_json, schema/postgres/004); what repeats is the cheap guard
//   around it. Moving that into a function would add a schema object, a migration step and an
//   upgrade path and would have to be re-proven in every plan (custom and generic) for an
//   expression that a pin keeps identical at no run-time cost.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_ID_BYTES } from '../src/identity.js';
import { canonical, checkSqlFragments, type Anchor, type Fragment } from './helpers/sql-fragment-check.js';

/** SQLite: utc9 (docs/timestamps.md) and AC-23b's metadata normalization. */
const SQLITE_FRAGMENTS: readonly Fragment[] = [
  {
    // Any stored host timestamp form -> 'YYYY-MM-DD HH:MM:SS.fffffffff' UTC; NULL when unparseable.
    name: 'utc9',
    text: (x) => `
      strftime('%Y-%m-%d %H:%M:%S', substr(${x}, 1, 19) || ltrim(substr(${x}, 20), '.0123456789'))
        || '.' ||
      substr(substr(${x}, 21, max(length(${x}) - 20 - length(ltrim(substr(${x}, 20), '.0123456789')), 0)) || '000000000', 1, 9)`,
  },
  {
    // Self-guarded: NULL, '', 'null', text that cannot be a subagent document, invalid JSON -> '{}'.
    // The guards run before json_valid, so only subagent messages reach the parser.
    name: 'metadata_or_empty',
    text: (x) => `
      (CASE WHEN ${x} IS NULL OR ${x} = '' OR ${x} = 'null'
              OR instr(${x}, '_task') = 0 OR NOT json_valid(${x})
            THEN '{}' ELSE ${x} END)`,
  },
  {
    // For rows already past subagent_prefilter (which NULL, '' and 'null' never pass): invalid -> '{}'.
    name: 'prefiltered_metadata_or_empty',
    text: (x) => `CASE WHEN json_valid(${x}) THEN ${x} ELSE '{}' END`,
    requires: 'subagent_prefilter',
  },
  {
    // For rows already past subagent_prefilter: a condition that drops invalid documents (which
    // read as '{}' and so cannot qualify) once per row, where the backfill's JSON calls follow.
    name: 'prefiltered_valid_json',
    text: (x) => `json_valid(${x})`,
    requires: 'subagent_prefilter',
  },
  {
    // The text prefilter: a superset of "is a subagent message" (backfill_subagent_contexts.sql says why).
    name: 'subagent_prefilter',
    text: (x) => `instr(${x}, '_task') > 0`,
  },
  {
    // src/identity.ts's recordable id: text, non-empty, at most MAX_ID_BYTES UTF-8 bytes (in a
    // UTF-8 database), no NUL, well-formed. nullif() so that the argument is read once per term.
    // length(CAST(x AS BLOB)) is the byte length in the database's encoding (octet_length would
    // say the same, but needs SQLite 3.43, newer than the package's 3.38 floor:
    // test/sqlite-floor.test.ts). length() counts characters up to the first NUL, so
    // length = byte length holds exactly for NUL-free ASCII, the usual id, which then skips
    // the costlier checks.
    // SQLite's GLOB decodes a lone surrogate (as json_extract renders a '\ud800' escape), an
    // overlong or truncated sequence, and U+FFFE/U+FFFF as U+FFFD; removing the real U+FFFD,
    // U+FFFE and U+FFFF first leaves a U+FFFD match only where the text is not well-formed.
    name: 'recordable_id',
    text: (x) => `
      (typeof(${x}) = 'text' AND length(CAST(nullif(${x}, '') AS BLOB)) <= ${MAX_ID_BYTES}
        AND (length(${x}) = length(CAST(${x} AS BLOB))
             OR (instr(${x}, char(0)) = 0
                 AND NOT replace(replace(replace(${x}, char(65533), ''), char(65534), ''), char(65535), '') GLOB '*' || char(65533) || '*')))`,
  },
];

const SQLITE_ANCHORS: readonly Anchor[] = [
  { pattern: /'\.0123456789'/g, fragments: ['utc9'] },
  { pattern: /'000000000'/g, fragments: ['utc9'] },
  { pattern: /\bjson_valid\s*\(/gi, fragments: ['metadata_or_empty', 'prefiltered_metadata_or_empty', 'prefiltered_valid_json'] },
  { pattern: /\binstr\s*\([^()]*'_task'\s*\)/gi, fragments: ['subagent_prefilter', 'metadata_or_empty'] },
  { pattern: /\bAS\s+BLOB\b/gi, fragments: ['recordable_id'] },
  { pattern: /\bchar\s*\(\s*6553[345]\s*\)/gi, fragments: ['recordable_id'] },
];

/** PostgreSQL: AC-23b's metadata normalization around subagent_context_is_json. */
const POSTGRES_FRAGMENTS: readonly Fragment[] = [
  {
    name: 'metadata_or_empty',
    text: (x) => `
      (CASE WHEN ${x} IS NULL OR ${x} = '' OR ${x} = 'null'
              OR strpos(${x}, 'subagent_task') = 0
              OR NOT subagent_context_is_json(${x})
            THEN '{}' ELSE ${x} END)::jsonb`,
  },
  {
    name: 'prefiltered_metadata_or_empty',
    text: (x) => `CASE WHEN subagent_context_is_json(${x}) THEN ${x}::jsonb ELSE '{}'::jsonb END`,
    requires: 'subagent_prefilter',
  },
  {
    name: 'subagent_prefilter',
    text: (x) => `strpos(${x}, 'subagent_task') > 0`,
  },
  {
    // src/identity.ts's recordable id. A UTF8 database's text holds no NUL and only
    // well-formed UTF-8 (jsonb rejects a '\u0000' or lone-surrogate escape, so such a document
    // reads as '{}'): non-empty and the length are the checks left, in bytes as the index
    // stores them. Written for the planner: the argument is read once (it copies an inlined
    // CTE's expression to each reference, and in the shortfall that expression parses the
    // document; BETWEEN would read it twice), and the test is a NULL test, whose default
    // selectivity (0.995) is that of the `<> ''` it replaces, where `len <= 512` would count
    // as 1/3 per id and skew the anti-join's plan (count_shortfall_since_capture.sql).
    name: 'recordable_id',
    text: (x) => `(NULLIF(octet_length(NULLIF(${x}, '')) <= ${MAX_ID_BYTES}, false) IS NOT NULL)`,
  },
];

const POSTGRES_ANCHORS: readonly Anchor[] = [
  // A call, not the function's name quoted as a literal (observe_subagent_table_shape.sql's to_regprocedure).
  { pattern: /(?<!')\bsubagent_context_is_json\s*\(/gi, fragments: ['metadata_or_empty', 'prefiltered_metadata_or_empty'] },
  { pattern: /\bstrpos\s*\([^()]*'subagent_task'\s*\)/gi, fragments: ['subagent_prefilter', 'metadata_or_empty'] },
  { pattern: /\boctet_length\s*\(/gi, fragments: ['recordable_id'] },
];

const DIALECTS = {
  sqlite: { fragments: SQLITE_FRAGMENTS, anchors: SQLITE_ANCHORS },
  postgres: { fragments: POSTGRES_FRAGMENTS, anchors: POSTGRES_ANCHORS },
} as const;

function sqlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? sqlFiles(p) : p.endsWith('.sql') ? [p] : [];
    });
}

/** queries/<dialect>/… -> dialect; a directory for another dialect fails loudly. */
function dialectOf(file: string): keyof typeof DIALECTS {
  const d = relative('queries', file).split(sep)[0];
  if (d !== 'sqlite' && d !== 'postgres') throw new Error(`${file}: no fragments defined for dialect '${d}'`);
  return d;
}

/** Runs the check over every .sql file under queries/: problems, and copies as "file: fragment(arg)". */
function checkTree(): { problems: string[]; copies: string[] } {
  const problems: string[] = [];
  const copies: string[] = [];
  for (const file of sqlFiles('queries')) {
    const { fragments, anchors } = DIALECTS[dialectOf(file)];
    const result = checkSqlFragments(file, readFileSync(file, 'utf8'), fragments, anchors);
    problems.push(...result.problems);
    copies.push(...result.copies.map((c) => `${file.split(sep).join('/')}: ${c.fragment}(${c.arg})`));
  }
  return { problems, copies };
}

describe('repeated SQL fragments are pinned to one canonical text', () => {
  it('every marked copy under queries/ equals its canonical text, none is unmarked, every header names its fragments', () => {
    const { problems } = checkTree();
    expect(problems).toEqual([]);
  });

  it('the walk finds the copies the statements are known to hold, on both dialects', () => {
    const { copies } = checkTree();
    // Each fragment of each dialect is found, so the check above cannot pass by finding nothing.
    for (const [dialect, { fragments }] of Object.entries(DIALECTS)) {
      for (const f of fragments) {
        expect(
          copies.some((c) => c.startsWith(`queries/${dialect}/`) && c.includes(`: ${f.name}(`)),
          `${dialect} ${f.name}`,
        ).toBe(true);
      }
    }
    expect(copies).toEqual(
      expect.arrayContaining([
        'queries/sqlite/count_shortfall_since_capture.sql: utc9(e.created_at)',
        'queries/sqlite/count_shortfall_since_capture.sql: utc9(s.observed_at)',
        'queries/sqlite/count_shortfall_since_capture.sql: metadata_or_empty(m.metadata)',
        'queries/sqlite/backfill_subagent_contexts.sql: utc9(m.updated_at)',
        'queries/sqlite/read_backfill_through.sql: prefiltered_metadata_or_empty(n.metadata)',
        'queries/sqlite/list_subagent_contexts_by_turn.sql: utc9(s.settled_at)',
        'queries/postgres/count_excess_since_capture.sql: metadata_or_empty(m.metadata)',
        'queries/postgres/backfill_subagent_contexts.sql: subagent_prefilter(m.metadata)',
        // One identity definition (src/identity.ts) on the write, backfill and shortfall sides.
        'queries/sqlite/backfill_subagent_contexts.sql: recordable_id(p.tool_call_id)',
        'queries/sqlite/backfill_subagent_contexts.sql: recordable_id(m.turn_id)',
        'queries/sqlite/read_backfill_through.sql: recordable_id(c.tool_call_id)',
        'queries/sqlite/count_shortfall_since_capture.sql: recordable_id(e.task_session_id)',
        'queries/sqlite/count_shortfall_since_capture.sql: recordable_id(e.task_id)',
        'queries/sqlite/count_shortfall_since_capture.sql: recordable_id(e.tool_call_id)',
        'queries/postgres/backfill_subagent_contexts.sql: recordable_id(p.task_session_id)',
        'queries/postgres/backfill_subagent_contexts.sql: recordable_id(c.turn_id)',
        'queries/postgres/read_backfill_through.sql: recordable_id(d.tool_call_id)',
        'queries/postgres/count_shortfall_since_capture.sql: recordable_id(e.task_session_id)',
        'queries/postgres/count_shortfall_since_capture.sql: recordable_id(e.task_id)',
        'queries/postgres/count_shortfall_since_capture.sql: recordable_id(e.tool_call_id)',
      ]),
    );
  });

  it('docs/timestamps.md shows exactly the canonical utc9 text', () => {
    const doc = readFileSync('docs/timestamps.md', 'utf8');
    const blocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => b.includes("'.0123456789'"));
    expect(blocks.length).toBe(1);
    const utc9 = SQLITE_FRAGMENTS.find((f) => f.name === 'utc9')!;
    expect(canonical(blocks[0])).toBe(canonical(utc9.text('x')));
  });
});

describe('the fragment checker (so the checks above can fail)', () => {
  const { fragments, anchors } = DIALECTS.sqlite;
  const utc9 = (x: string) => canonical(SQLITE_FRAGMENTS[0].text(x));
  const header = `/*\n * Fragments: utc9, pinned by test/sql-fragment-pin.test.ts.\n */\n/* @name q */\n`;

  it('accepts a marked copy, also one wrapped at its spaces', () => {
    const wrapped = utc9('s.observed_at').replace(" || '.' || ", "\n    || '.' ||\n    ");
    for (const body of [utc9('s.observed_at'), wrapped]) {
      const sql = `${header}SELECT 1 FROM t AS s\n WHERE (/* utc9(s.observed_at) */ ${body}) >= :since!;`;
      expect(checkSqlFragments('q.sql', sql, fragments, anchors)).toEqual({
        copies: [{ fragment: 'utc9', arg: 's.observed_at', line: 6 }],
        problems: [],
      });
    }
  });

  it('names file and line of a marked copy that differs by one character', () => {
    const changed = utc9('s.observed_at').replace("'000000000', 1, 9", "'000000000', 1, 6");
    const sql = `${header}SELECT 1 FROM t AS s\n WHERE s.a = 1\n   AND (/* utc9(s.observed_at) */ ${changed}) >= :since!;`;
    const { problems } = checkSqlFragments('q.sql', sql, fragments, anchors);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^q\.sql:7: the copy marked utc9\(s\.observed_at\) on line 7 differs from the canonical text: expected "9\)", found "6\)/);
  });

  it('rejects a copy whose marker names another column, and whitespace inserted inside a token', () => {
    const other = `${header}SELECT /* utc9(s.settled_at) */ ${utc9('s.observed_at')} FROM t AS s;`;
    expect(checkSqlFragments('q.sql', other, fragments, anchors).problems[0]).toMatch(/^q\.sql:5: the copy marked utc9\(s\.settled_at\)/);
    const split = `${header}SELECT /* utc9(s.a) */ ${utc9('s.a').replace('substr(s.a, 1, 19)', 'substr( s.a, 1, 19)')} FROM t AS s;`;
    expect(checkSqlFragments('q.sql', split, fragments, anchors).problems[0]).toMatch(/^q\.sql:5: the copy marked utc9\(s\.a\)/);
  });

  it('names file and line of an unmarked copy, and ignores the same text inside a comment', () => {
    const sql = `${header}SELECT 1 FROM t AS s\n -- ${utc9('s.a')}\n WHERE ${utc9('s.observed_at')} >= :since!;`;
    const { problems, copies } = checkSqlFragments('q.sql', sql, fragments, anchors);
    expect(copies).toEqual([]);
    expect(problems).toHaveLength(3); // the copy's three anchors (two ltrim sets, the padding), all on line 7
    for (const p of problems) expect(p).toMatch(/^q\.sql:7: "'(\.0123456789|000000000)'" outside a marked copy: write it as \/\* utc9\(…\) \*\//);
  });

  it('requires the prefilter beside prefiltered_metadata_or_empty, and the header to name what the file uses', () => {
    const noPrefilter = `${header}SELECT /* prefiltered_metadata_or_empty(m.metadata) */ CASE WHEN json_valid(m.metadata) THEN m.metadata ELSE '{}' END FROM m;`;
    expect(checkSqlFragments('q.sql', noPrefilter, fragments, anchors).problems).toEqual([
      'q.sql:5: prefiltered_metadata_or_empty(m.metadata) is used without subagent_prefilter(m.metadata) in the same statement',
      'q.sql:1: the header must name the fragment prefiltered_metadata_or_empty and test/sql-fragment-pin.test.ts',
    ]);
    const unmarkedPrefilter = `/* @name q */\nSELECT 1 FROM m WHERE instr(m.metadata, '_task') > 0;`;
    expect(checkSqlFragments('q.sql', unmarkedPrefilter, fragments, anchors).problems[0]).toMatch(
      /^q\.sql:2: "instr\(m\.metadata, '_task'\)" outside a marked copy/,
    );
  });

  it('rejects a recordable_id copy whose length is not MAX_ID_BYTES, on both dialects', () => {
    for (const [dialect, { fragments: fs, anchors: as }] of Object.entries(DIALECTS)) {
      const rec = fs.find((f) => f.name === 'recordable_id')!;
      const good = canonical(rec.text('p.tool_call_id'));
      const bad = good.replace(`<= ${MAX_ID_BYTES}`, `<= ${MAX_ID_BYTES + 1}`);
      expect(bad, dialect).not.toBe(good);
      const sql = (body: string) =>
        `/*\n * Fragments: recordable_id, pinned by test/sql-fragment-pin.test.ts.\n */\n/* @name q */\nSELECT 1 FROM p WHERE /* recordable_id(p.tool_call_id) */ ${body};`;
      expect(checkSqlFragments('q.sql', sql(good), fs, as).problems, dialect).toEqual([]);
      expect(checkSqlFragments('q.sql', sql(bad), fs, as).problems[0], dialect).toMatch(/^q\.sql:5: the copy marked recordable_id\(p\.tool_call_id\)/);
    }
  });

  it('finds PostgreSQL copies by their own anchors', () => {
    const pg = DIALECTS.postgres;
    const sql = `/* @name q */\nSELECT\n  (CASE WHEN m.metadata IS NULL OR m.metadata = '' THEN '{}' ELSE m.metadata END)::jsonb,\n  subagent_context_is_json(m.metadata) FROM m;`;
    expect(checkSqlFragments('q.sql', sql, pg.fragments, pg.anchors).problems).toEqual([
      expect.stringMatching(/^q\.sql:4: "subagent_context_is_json\(" outside a marked copy/),
    ]);
  });
});
