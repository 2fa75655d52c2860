/*
 * prefiltered_valid_json(x): for rows already past subagent_prefilter, a condition that drops
 * invalid documents (which read as '{}' and so cannot qualify) once per row, where the
 * backfill's JSON calls follow.
 * @requires subagent_prefilter
 * @anchor json_valid(
 */
json_valid(x)
