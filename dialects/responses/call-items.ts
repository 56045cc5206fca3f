import { customInput, type ClientTool } from './client-tools.js';
import type { LocalShellAction, OutputCall, ResponseStatus } from './types.js';

/** A canonical tool call, as the encoders know it: its ids, the model-facing name, the arguments so far. */
export interface CallParts {
  id: string;
  callId: string;
  name: string;
  arguments: string;
  status: ResponseStatus;
}

/**
 * The output item of a call, as OpenAI sends it for the client's tool: `function_call` (with the `namespace` and
 * the function's own name for a namespace tool's function), `custom_tool_call` with the free-form `input`, or
 * `local_shell_call` with its `exec` action. `tool` is undefined for a plain function tool.
 */
export function callItem(tool: ClientTool | undefined, call: CallParts): OutputCall {
  const { id, callId, status } = call;
  switch (tool?.kind) {
    case undefined:
      return { type: 'function_call', id, call_id: callId, name: call.name, arguments: call.arguments, status };
    case 'function':
      return {
        type: 'function_call',
        id,
        call_id: callId,
        name: tool.name,
        namespace: tool.namespace,
        arguments: call.arguments,
        status,
      };
    case 'custom':
      return {
        type: 'custom_tool_call',
        id,
        call_id: callId,
        name: tool.name,
        input: customInput(call.arguments),
        status,
      };
    case 'local_shell':
      return { type: 'local_shell_call', id, call_id: callId, action: shellAction(call.arguments), status };
    default:
      return unknownTool(tool);
  }
}

/**
 * The `exec` action of the model's `local_shell` arguments (`{command, workdir?, timeout_ms?}`). A command written
 * as one string runs through `bash -lc`; arguments that are not JSON (a call still streaming) give an empty argv.
 */
export function shellAction(args: string): Required<LocalShellAction> {
  const parsed = parseObject(args);
  const command = parsed.command;
  const argv = Array.isArray(command)
    ? command.map(String)
    : typeof command === 'string'
      ? ['bash', '-lc', command]
      : [];
  return {
    type: 'exec',
    command: argv,
    timeout_ms: typeof parsed.timeout_ms === 'number' ? parsed.timeout_ms : null,
    working_directory: typeof parsed.workdir === 'string' ? parsed.workdir : null,
    env: {},
    user: null,
  };
}

/** A replayed `local_shell_call` action as the arguments the model wrote. */
export function shellArguments(action: LocalShellAction): string {
  const args: Record<string, unknown> = { command: action.command };
  if (action.working_directory != null) args.workdir = action.working_directory;
  if (action.timeout_ms != null) args.timeout_ms = action.timeout_ms;
  return JSON.stringify(args);
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Not (yet) JSON.
  }
  return {};
}

function unknownTool(_tool: never): never {
  throw new Error('unknown client tool kind');
}
