/*
 * before_since_text(x): false only for a stored timestamp whose text alone proves it is before
 * :since, so SQLite can drop the text floor's extra rows on the index entry, before the row is
 * read. x's text sorts before the key's whole second only when its instant is earlier, unless
 * x carries a negative offset (the only form whose text can sort before its instant): proof in
 * docs/timestamps.md, "Index-friendliness"; test/health-window-edge.test.ts seeds every form at
 * the edge. It narrows; the exact utc9 comparison still decides.
 */
(x >= substr(:since!, 1, 19) OR substr(x, -6, 1) = '-')
