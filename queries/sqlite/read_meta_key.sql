/* Reads one kandev_meta key verbatim: no row when absent, '' and legacy values as stored. */
/* @returns maybe-one */
/* @name readMetaKey */
SELECT m.value FROM kandev_meta AS m WHERE m.key = :key!;
