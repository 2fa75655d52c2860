/*
 * DEMO ONLY — every schema object a database already holds: tables, views, indexes and
 * triggers, SQLite's own sqlite_% bookkeeping aside. The demo writes only into a file it made
 * or one that holds none: a single table or view of the user's means the file is someone's
 * database, and the demo refuses it. Run on an in-memory copy, never on the file itself.
 */
/* @returns many */
/* @name demoExistingObjects */
SELECT m.type AS "kind!", m.name AS "name!"
  FROM sqlite_master AS m
 WHERE m.name NOT LIKE 'sqlite!_%' ESCAPE '!'
 ORDER BY m.name, m.type;
