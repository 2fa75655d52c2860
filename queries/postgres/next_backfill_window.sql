/*
 * The next window of the PostgreSQL backfill's window walk (issue 32 item 5;
 * src/migrations/backfill-windows.ts, docs/migrations.md "PostgreSQL: windows of created_at").
 * The newest message created at or before :top ('infinity' at first) is the window's newest,
 * and the window is [lo, :top]: lo is that message's created_at − :widthUs microseconds, and
 * with :messages > 0 (the first window) never below the created_at of the :messages-th newest,
 * so the first window holds about that many messages whatever the history's span (all of a
 * small store: one transaction, as one session chunk). Windows are walked newest first, each
 * one's "below" (lo − 1 µs, the greatest value under lo: timestamps are whole microseconds) the
 * next one's :top, so every message lies in exactly one window and every message sharing a
 * created_at value in the same one (AC-21b's tie-break is then decided inside one statement).
 * Starting each window at the newest message left skips a gap in the host's history in one step.
 *
 * Exact edges: lo and below come back as the column's own text and go back typed by the
 * column, so they are exact to the microsecond whether the column is timestamp or timestamptz
 * and whatever the session's TimeZone (a microsecond interval does not depend on it, as a
 * day's would). Never an error from the arithmetic: an infinite newest message is a window of
 * its own, a window that would reach below the type's least value (4714-11-24 BC) starts at
 * '-infinity', no interval is formed between two values that may lie further apart than one can
 * hold (an adversarial review: a message in year 290000 failed every run), and below the least
 * finite value the next window is '-infinity'. Inclusive bounds, not `< :before`: the first window then holds a message
 * created at 'infinity', as the single statement does, and every comparison is one the
 * created_at index answers (an `OR :before IS NULL` was a filter there, not a bound).
 * "lo" NULL: no message is left at or below :top. "below" NULL: none is below lo, so this
 * window is the last, and its transaction activates.
 *
 * "width_us": the window's width from lo to its newest message (NULL when either is infinite):
 * the runner sizes the next window from it and the time this one took.
 * Cost: probes of the host's created_at index only (the max at or below :top, the
 * :messages-th newest, one entry below lo), which the walk needs: it runs only where that index
 * is there (probe_created_at_index.sql).
 */
/* @returns one */
/* @name nextBackfillWindow */
WITH newest AS (
  SELECT max(m.created_at) AS newest
    FROM task_session_messages AS m
   WHERE m.created_at <= :top!
), counted AS (
  -- The :messages-th newest (ties at that edge fall inside, as lo is inclusive); none: every message.
  SELECT CASE WHEN :messages!::bigint > 0 THEN COALESCE((
    SELECT m.created_at
      FROM task_session_messages AS m
     WHERE m.created_at <= :top!
     ORDER BY m.created_at DESC
    OFFSET GREATEST(:messages!::bigint, 1) - 1
     LIMIT 1), '-infinity') END AS edge
), least AS (
  -- The type's least finite value, typed as the column (a CASE resolves the literal to it).
  SELECT CASE WHEN false THEN n.newest ELSE '4714-11-24 00:00:00+00 BC' END AS least FROM newest AS n
), edge AS (
  -- Compared as least + width (width is at most 100 years: no overflow), never as newest −
  -- least, which overflows an interval for a newest value past about year 287,000 (PostgreSQL 17+).
  SELECT GREATEST(c.edge,
           CASE WHEN NOT isfinite(n.newest) THEN n.newest
                WHEN n.newest <= l.least + :widthUs!::bigint * interval '1 microsecond' THEN '-infinity'
                ELSE n.newest - :widthUs!::bigint * interval '1 microsecond' END) AS lo,
         n.newest, l.least
    FROM newest AS n CROSS JOIN counted AS c CROSS JOIN least AS l
)
SELECT e.lo::text AS "lo?",
       -- A max, not NOT EXISTS: the planner reads an EXISTS that it expects to match early by a
       -- sequential scan, which reads the whole table when nothing is below (the last window).
       CASE WHEN (SELECT max(m.created_at) FROM task_session_messages AS m WHERE m.created_at < e.lo) IS NULL THEN NULL
            WHEN e.lo = 'infinity' THEN '294276-12-31 23:59:59.999999+00'
            -- Below the least finite value only '-infinity' is left (lo − 1 µs would be out of range).
            WHEN e.lo <= e.least THEN '-infinity'
            ELSE e.lo - interval '1 microsecond' END::text AS "below?",
       -- In epoch seconds, not as an interval: the difference of two far-apart values overflows one.
       CASE WHEN isfinite(e.lo) AND isfinite(e.newest)
            THEN ((extract(epoch FROM e.newest) - extract(epoch FROM e.lo)) * 1000000)::float8 END AS "width_us?"
  FROM edge AS e;
