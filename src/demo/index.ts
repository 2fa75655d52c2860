// The demo's entry point, for the CLI's `subagent-context demo`.
export { DEFAULT_DEMO_SQLITE_FILE, runDemo, type DemoOptions } from './run-demo.js';
