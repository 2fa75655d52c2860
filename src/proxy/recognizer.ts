// The one place the proxy gets its subagent recognizer: DESIGN §10's createSubagentRecognizer.
// Until the ACP intake (subagent-context/acp, issue 18) is merged, an interim recognizer with
// the same interface stands in; the merge replaces this export and nothing else.
export type { RecognizedSubagentUpdate, SubagentRecognizer } from './recognizer-interface.js';
export { createInterimRecognizer as createSubagentRecognizer } from './interim-recognizer.js';
