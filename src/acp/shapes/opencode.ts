// OpenCode (`opencode acp`). Measured on real runs (recordings/acp/opencode-*.jsonl):
// the tool is `task`, and only the first frame's title says so (later titles are the
// description), so recognition is remembered per tool call; `in_progress` is sent twice; the
// terminal frame has `rawOutput.metadata.sessionId` (the child session) and
// `metadata.model {providerID, modelID}` (a model is `providerID/modelID`, as Kandev writes it);
// no usage at all; a background launch has `metadata.background: true`, a detached dispatch,
// hence is_async.
import { ordinaryKind } from '../delegation-lookalike.js';
import { bool, contentText, field, object, text } from '../wire.js';
import type { AgentShape } from './shape.js';

function model(value: unknown): string | undefined {
  const provider = text(field(value, 'providerID'));
  const id = text(field(value, 'modelID'));
  if (id === undefined) return undefined;
  return provider === undefined ? id : `${provider}/${id}`;
}

export const opencodeShape: AgentShape = {
  agent: 'opencode',
  classify(update) {
    // The title alone is not enough: a later frame's title is its tool's result title, so a
    // `grep` for "task" or a `read` of a file named task says `task` too. A later frame may also
    // carry no kind at all (1.18.33's completed frames have none), so only a frame that names its
    // kind, and not an ordinary one, claims the call: the launch's first frame says `think`.
    const kind = field(update, 'kind');
    return field(update, 'title') === 'task' && typeof kind === 'string' && !ordinaryKind(kind) ? true : undefined;
  },
  read(update) {
    const input = field(update, 'rawInput');
    const output = object(field(update, 'rawOutput'));
    const metadata = field(output, 'metadata');
    const background = field(input, 'background') === true || bool(field(metadata, 'background')) === true;
    return {
      payload: {
        description: text(field(input, 'description')),
        prompt: text(field(input, 'prompt')),
        subagent_type: text(field(input, 'subagent_type')),
        child_session_id: text(field(metadata, 'sessionId')),
        model: model(field(metadata, 'model')),
        is_async: background ? true : undefined,
        result_text: text(field(output, 'output')) ?? contentText(field(update, 'content')),
      },
    };
  },
};
