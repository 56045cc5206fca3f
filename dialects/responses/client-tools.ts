import type { ChatFunctionTool, JsonObject } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { quoted } from '../../core/printable.js';
import { flatName, LOCAL_SHELL_FUNCTION } from './tool-names.js';
import type { ClientToolParam, CustomToolParam, FunctionToolParam, ResponsesRequest } from './types.js';

/** What a model-facing function name stands for on the client's side, when it is not a plain function tool. */
export type ClientTool =
  { kind: 'function'; name: string; namespace: string } | { kind: 'custom'; name: string } | { kind: 'local_shell' };

/** Model-facing name → the client's tool; plain function tools are not in it (their names are their own). */
export type ClientToolNames = ReadonlyMap<string, ClientTool>;

/** One string parameter: the model writes a custom tool's free-form input into it. */
const CUSTOM_INPUT = 'input';

/** Codex's own schema for its shell tool (an argv, a directory, a timeout): what a `local_shell_call` action holds. */
const LOCAL_SHELL_PARAMETERS: JsonObject = {
  type: 'object',
  properties: {
    command: {
      type: 'array',
      items: { type: 'string' },
      description: 'The command to run and its arguments, e.g. ["bash", "-lc", "ls -la"].',
    },
    workdir: { type: 'string', description: 'The working directory to run the command in.' },
    timeout_ms: { type: 'number', description: 'The most milliseconds the command may run.' },
  },
  required: ['command'],
  additionalProperties: false,
};

/**
 * The client's tools as the model's function tools, in order: function tools as they are, a `namespace`
 * tool's functions under `<namespace>__<name>`, a `custom` tool as a function of one string `input`, and
 * `local_shell` as a function of Codex's shell schema. A mapped name that is already another tool's (or
 * one of `reserved`, the gateway's own tools) is a 400 naming the field, since a call could not be told apart.
 */
export function chatToolsOf(tools: ResponsesRequest['tools'], reserved: ReadonlySet<string>): ChatFunctionTool[] {
  const chat: ChatFunctionTool[] = [];
  /** Model-facing name → whether it is a plain function tool's (plain duplicates are the upstream's to judge). */
  const taken = new Map<string, boolean>([...reserved].map((name) => [name, false]));
  const add = (tool: ChatFunctionTool, plain: boolean, param: string): void => {
    const name = tool.function.name;
    const earlier = taken.get(name);
    if (earlier !== undefined && !(earlier && plain))
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `Invalid value for '${param}': the model would see two tools named ${quoted(name)} (a namespace's functions are named '<namespace>__<name>'); tool names must be unique.`,
        param,
      );
    if (earlier === undefined) taken.set(name, plain);
    chat.push(tool);
  };
  (tools ?? []).forEach((tool, i) => {
    if (!isClientTool(tool)) return;
    switch (tool.type) {
      case 'function':
        add(functionTool(tool.name, tool), true, `tools[${i}].name`);
        break;
      case 'namespace':
        tool.tools.forEach((inner, j) =>
          add(functionTool(flatName(tool.name, inner.name), inner), false, `tools[${i}].tools[${j}].name`),
        );
        break;
      case 'custom':
        add(customTool(tool), false, `tools[${i}].name`);
        break;
      case 'local_shell':
        add(
          {
            type: 'function',
            function: {
              name: LOCAL_SHELL_FUNCTION,
              description: "Runs a command on the user's machine and returns its output.",
              parameters: LOCAL_SHELL_PARAMETERS,
            },
          },
          false,
          `tools[${i}].type`,
        );
        break;
      default:
        unknownTool(tool);
    }
  });
  return chat;
}

/** The mapped names of a validated request's tools (decode checked them with chatToolsOf). */
export function clientToolNames(tools: ResponsesRequest['tools']): ClientToolNames {
  const names = new Map<string, ClientTool>();
  for (const tool of tools ?? []) {
    if (tool.type === 'namespace')
      for (const inner of tool.tools)
        names.set(flatName(tool.name, inner.name), { kind: 'function', name: inner.name, namespace: tool.name });
    else if (tool.type === 'custom') names.set(tool.name, { kind: 'custom', name: tool.name });
    else if (tool.type === 'local_shell') names.set(LOCAL_SHELL_FUNCTION, { kind: 'local_shell' });
  }
  return names;
}

function isClientTool(tool: NonNullable<ResponsesRequest['tools']>[number]): tool is ClientToolParam {
  return tool.type === 'function' || tool.type === 'namespace' || tool.type === 'custom' || tool.type === 'local_shell';
}

function functionTool(name: string, tool: FunctionToolParam): ChatFunctionTool {
  const fn: ChatFunctionTool['function'] = { name };
  if (tool.description != null) fn.description = tool.description;
  if (tool.parameters != null) fn.parameters = tool.parameters;
  if (tool.strict != null) fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

/** A free-form tool: its grammar, if any, goes into the description so the model can follow it. */
function customTool(tool: CustomToolParam): ChatFunctionTool {
  const format = tool.format;
  const grammar =
    format?.type === 'grammar'
      ? `Write the '${CUSTOM_INPUT}' text in this ${format.syntax} grammar:\n${format.definition}`
      : undefined;
  const description = [tool.description, grammar].filter((part) => part != null && part !== '').join('\n\n');
  const fn: ChatFunctionTool['function'] = {
    name: tool.name,
    parameters: {
      type: 'object',
      properties: { [CUSTOM_INPUT]: { type: 'string', description: 'The free-form input of the tool.' } },
      required: [CUSTOM_INPUT],
      additionalProperties: false,
    },
  };
  if (description !== '') fn.description = description;
  return { type: 'function', function: fn };
}

/** A custom tool's input from the model's arguments: `{"input": "..."}`, or the raw text when it is not that. */
export function customInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      const input = (parsed as Record<string, unknown>)[CUSTOM_INPUT];
      if (typeof input === 'string') return input;
    }
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return args;
}

/** A replayed custom call's input as the arguments the model wrote. */
export function customArguments(input: string): string {
  return JSON.stringify({ [CUSTOM_INPUT]: input });
}

function unknownTool(_tool: never): void {}
