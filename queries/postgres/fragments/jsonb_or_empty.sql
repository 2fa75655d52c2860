/*
 * jsonb_or_empty(x): x as jsonb when valid_jsonb admits it; else, when it holds a \u0000 escape
 * (chr(92) is the backslash), x read with every string holding one as null, if that is valid
 * (nul_strings_as_null, asked only of that rare text); else '{}' (AC-23b). x may be text, jsonb or
 * json (the host's metadata column, docs/host-tables.md): each text function reads x::text (a
 * no-op on text), and x::jsonb is the same parse from any of them (a no-op on jsonb).
 */
(CASE WHEN {{valid_jsonb(x)}} THEN x::jsonb
      WHEN strpos(x::text, chr(92) || 'u0000') > 0
        THEN (SELECT CASE WHEN {{valid_jsonb(n.doc)}} THEN n.doc::jsonb ELSE '{}'::jsonb END
                FROM (SELECT {{nul_strings_as_null(x)}} AS doc OFFSET 0) AS n)
      ELSE '{}'::jsonb END)
