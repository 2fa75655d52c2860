// The one place the proxy gets its subagent recognizer: subagent-context/acp's (DESIGN §10).
export { createSubagentRecognizer, type RecognizedSubagentUpdate, type SubagentRecognizer } from '../acp/index.js';
