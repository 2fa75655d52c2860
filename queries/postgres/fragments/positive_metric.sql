/*
 * positive_metric(x): x when the report may count it as a measurement and sum it, else NULL.
 * For total_tokens (and duration_ms) only a value above 0 is one: 0 is "not reported" (AC-7a)
 * and a negative is no measurement (AC-9). The package's writer stores neither, but the column
 * has no CHECK, so a host's own writer or a legacy row the AC-33 rebuild kept byte for byte
 * may hold one. Read as unmeasured, such a row leaves every sum, mean and bucket as the
 * measured rows give it. (tool_use_count is not read this way: its 0 is a measurement, AC-8.)
 */
(CASE WHEN x > 0 THEN x END)
