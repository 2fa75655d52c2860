// The CLI's exit codes: a contract for whatever wires `subagent-context health` to an alarm
// (docs/health.md). 1 is deliberately unused: it is what Node itself exits with when it
// crashes, and a crash must never read as a verdict.
export const EXIT = {
  /** health: healthy. migrate: every step applied or skipped. demo: upgrade ok and healthy. --help. */
  ok: 0,
  /** Bad arguments: unknown command or option, missing, conflicting or repeated database
   * option; demo: a database the demo did not create (it refuses to write there); report
   * --html: a target it refuses (the database or its -wal/-shm, an existing file without
   * --force, a symbolic link, not a regular file). */
  usage: 2,
  /** health: a shortfall confirmed by a second evaluation (AC-28, AC-28b): the alarm. */
  shortfall: 3,
  /** health: capture_since is absent, the comparison was not run (AC-28a, AC-24c). */
  notActivated: 4,
  /** health: no row observed since capture_since (AC-29), never read as healthy. */
  nothingSinceActivation: 5,
  /** migrate: at least one step failed (its WARN line says why; the next run retries). */
  migrationFailed: 6,
  /** The database cannot answer: missing file, unreachable server, missing tables, an
   * activation key that is not an instant, a statement that failed. demo: the demo did not
   * end healthy (its upgrade failed or its health check is not healthy). */
  database: 7,
  /** The chosen dialect's driver is not installed (`npm install pg` / `npm install better-sqlite3`):
   * the drivers are optional peer dependencies, and the host installs the one it uses. */
  driverMissing: 8,
  /** A bug in this CLI (report --html: the page renderer crashed). */
  internal: 70,
  /** The output could not be written: report --html FILE (no space, no permission, a missing
   * or read-only folder) or stdout itself (sysexits' EX_CANTCREAT). Never 2: the arguments
   * were fine, the disk was not. */
  output: 73,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
