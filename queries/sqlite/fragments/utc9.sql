/*
 * utc9(x): any stored host timestamp form -> 'YYYY-MM-DD HH:MM:SS.fffffffff' UTC, NULL when
 * unparseable (docs/timestamps.md explains each part). The seconds come from strftime of the
 * fraction-less text plus its offset (exact: no fraction is parsed), the fraction is copied
 * digit for digit and right-padded to nine. Fixed width, so the forms compare lexically in
 * instant order. Only a text that starts with a digit is read: strftime takes 'now' (in any
 * case) for the current time, which would make a host's literal 'now' a different instant in
 * each statement that reads it (the SQLite backfill ranks a staged value against one read later).
 * Included as {{utc9(col)}}; SQLite's SQL cannot define a function, and a view could serve
 * only the package's own table, never the host's messages (DESIGN §3).
 * @anchor '.0123456789'
 * @anchor '000000000'
 */
(CASE WHEN x GLOB '[0-9]*' THEN
strftime('%Y-%m-%d %H:%M:%S', substr(x, 1, 19) || ltrim(substr(x, 20), '.0123456789'))
  || '.' ||
substr(substr(x, 21, max(length(x) - 20 - length(ltrim(substr(x, 20), '.0123456789')), 0)) || '000000000', 1, 9)
END)
