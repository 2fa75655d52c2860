#!/usr/bin/env node
// PLACEHOLDER (issue 5 builds the CLI): `subagent-context migrate|health|demo`.
process.stderr.write('subagent-context: the CLI is not built yet\n');
process.exit(2);
