// What a table rebuild does with what a host added to the package's table (issue #16 item 6).
// SQLite's AC-33 rebuild creates task_session_subagents afresh and copies the package's columns
// across; the old table's indexes and triggers go with it. Never silently:
// - a host index or trigger is re-created from its own DDL once the rows are in (after the
//   copy, so a host's AFTER INSERT trigger does not fire for rows that were already there);
// - a host column (and its values) cannot be carried by the fixed column list of the copy, so
//   the rebuild is refused: the step fails with a WARN naming every column, index and trigger
//   it would have dropped, and the table is left exactly as it is until the host moves them.
import { plural } from '../human-numbers.js';
import type { HostObject, SchemaScript } from './migration-database.js';

export function hostObjectScripts(objects: readonly HostObject[]): SchemaScript[] {
  const columns = objects.filter((o) => o.kind === 'column');
  if (columns.length) {
    const others = objects.filter((o) => o.kind !== 'column').map((o) => `${o.kind} ${o.name}`);
    throw new Error(
      `refused: rebuilding task_session_subagents would drop the host's ${plural(columns.length, 'column')} ${columns.map((c) => c.name).join(', ')} ` +
        `and their values${others.length ? ` (and with them ${others.join(', ')})` : ''}; the table is left as it is. ` +
        'Move the column(s) to a table of the host, then run migrate again',
    );
  }
  return objects
    .filter((o) => o.kind === 'index' || o.kind === 'trigger')
    .map((o) => {
      if (!o.definition) throw new Error(`host ${o.kind} ${o.name} on task_session_subagents has no DDL to re-create it from; refused`);
      return { name: `host ${o.kind} ${o.name}`, sql: o.definition };
    });
}
