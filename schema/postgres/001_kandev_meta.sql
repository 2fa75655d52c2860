-- kandev_meta: the host's key/value table. The package writes exactly three keys into it
-- (ACTIVATION_KEYS), each write-once (AC-24). Created here only when the host has not.
CREATE TABLE IF NOT EXISTS kandev_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL DEFAULT ''
);
