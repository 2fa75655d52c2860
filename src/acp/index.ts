// Package entry `subagent-context/acp` (DESIGN §10): from ACP `session/update` notifications to
// store frames, for Claude Code, OpenCode, Gemini CLI, Qwen Code, Codex, Cursor and Auggie and
// ACP's Subagent Sessions.
// No dependency on an ACP SDK: the types are structural.
export { createSubagentRecognizer } from './recognizer.js';
export { createAcpRecorder } from './recorder.js';
export type {
  AcpHostContext,
  AcpRecorder,
  AcpRecorderCounters,
  AcpRecorderOptions,
  AcpSessionUpdateParams,
  RecognizedSubagentUpdate,
  SubagentRecognizer,
  SubagentRecognizerOptions,
  UnrecognizedDelegation,
} from './types.js';
