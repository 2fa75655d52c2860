// The demo's entry point, for the CLI's `subagent-context demo` (src/cli/demo-command.ts).
export { DemoRefusal, shellWord } from './demo-database.js';
export { openDemoDatabase, runDemo } from './run-demo.js';
