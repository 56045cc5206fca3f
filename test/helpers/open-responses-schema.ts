// The Open Responses schema (openresponses/openresponses, version 2026-04-24, Apache-2.0) as ajv validators of
// response objects and streaming events. The schema is a verbatim copy in test/fixtures/open-responses (with its
// licence). OpenAPI 3.1 components are JSON Schema 2020-12; their
// `discriminator`s only name the `type` that each `oneOf` branch pins with an enum, so plain `oneOf` decides.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { packageRoot } from '../../config/package-root.js';

export const OPEN_RESPONSES_SCHEMA = join(packageRoot(), 'test', 'fixtures', 'open-responses', 'openapi.json');

type Schema = Record<string, unknown>;

interface OpenApi {
  info: { version: string };
  components: { schemas: Record<string, Schema> };
}

/**
 * OpenAI's web search, which the Responses API has and this version of the Open Responses schema does not
 * define: the `web_search_call` item, the `web_search` tool as echoed, and the three `response.web_search_call.*`
 * events (shapes of openai-node's `ResponseFunctionWebSearch`, `WebSearchTool` and `ResponseWebSearchCall*Event`).
 * Added only where a validator is asked for them, so that everything else is checked against the schema alone.
 */
const WEB_SEARCH: Record<string, Schema> = {
  WebSearchCall: {
    type: 'object',
    required: ['type', 'id', 'status', 'action'],
    properties: {
      type: { enum: ['web_search_call'] },
      id: { type: 'string' },
      status: { enum: ['in_progress', 'searching', 'completed', 'failed'] },
      action: {
        type: 'object',
        required: ['type', 'query'],
        properties: { type: { enum: ['search'] }, query: { type: 'string' } },
      },
    },
  },
  WebSearchTool: {
    type: 'object',
    required: ['type'],
    properties: {
      type: { enum: ['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11'] },
    },
  },
};

const WEB_SEARCH_EVENTS = [
  'response.web_search_call.in_progress',
  'response.web_search_call.searching',
  'response.web_search_call.completed',
];

function webSearchEvent(type: string): Schema {
  return {
    type: 'object',
    required: ['type', 'sequence_number', 'item_id', 'output_index'],
    properties: {
      type: { enum: [type] },
      sequence_number: { type: 'integer' },
      item_id: { type: 'string' },
      output_index: { type: 'integer' },
    },
  };
}

/**
 * The reasoning text events under OpenAI's names: `response.reasoning_text.delta` and `.done` are the schema's
 * `response.reasoning.delta` and `.done` (ResponseReasoningDeltaStreamingEvent, ResponseReasoningDoneStreamingEvent)
 * with only the `type` renamed; openai's `responses.stream()` knows no others. Every other field is checked
 * against the schema's own event.
 */
const REASONING_TEXT_EVENTS: Record<string, string> = {
  'response.reasoning_text.delta': 'ResponseReasoningDeltaStreamingEvent',
  'response.reasoning_text.done': 'ResponseReasoningDoneStreamingEvent',
};

/**
 * Codex's tool types, which the Responses API has and this version of the schema does not define (its `ItemField`
 * knows only `function_call` among calls, its `Tool` only `function`): the `custom_tool_call` and
 * `local_shell_call` items, the `namespace`, `custom` and `local_shell` tools as echoed, and the
 * `response.custom_tool_call_input.*` events (shapes of openai-node's `ResponseCustomToolCall`,
 * `ResponseOutputItem.LocalShellCall`, `NamespaceTool`, `CustomTool`, `Tool.LocalShell` and
 * `ResponseCustomToolCallInput*Event`). A namespace's `function_call` needs none: it is the schema's
 * `FunctionCall` with OpenAI's `namespace` beside its fields.
 */
const CODEX_TOOLS: Record<string, Schema> = {
  CustomToolCall: {
    type: 'object',
    required: ['type', 'call_id', 'name', 'input'],
    properties: {
      type: { enum: ['custom_tool_call'] },
      id: { type: 'string' },
      call_id: { type: 'string' },
      name: { type: 'string' },
      input: { type: 'string' },
      namespace: { type: 'string' },
    },
  },
  LocalShellCall: {
    type: 'object',
    required: ['type', 'id', 'call_id', 'status', 'action'],
    properties: {
      type: { enum: ['local_shell_call'] },
      id: { type: 'string' },
      call_id: { type: 'string' },
      status: { enum: ['in_progress', 'completed', 'incomplete'] },
      action: {
        type: 'object',
        required: ['type', 'command', 'env'],
        properties: {
          type: { enum: ['exec'] },
          command: { type: 'array', items: { type: 'string' } },
          env: { type: 'object', additionalProperties: { type: 'string' } },
          timeout_ms: { type: ['integer', 'null'] },
          user: { type: ['string', 'null'] },
          working_directory: { type: ['string', 'null'] },
        },
      },
    },
  },
  CustomTool: {
    type: 'object',
    required: ['type', 'name'],
    properties: {
      type: { enum: ['custom'] },
      name: { type: 'string' },
      description: { type: 'string' },
      format: { type: 'object', required: ['type'], properties: { type: { enum: ['text', 'grammar'] } } },
    },
  },
  NamespaceTool: {
    type: 'object',
    required: ['type', 'name', 'description', 'tools'],
    properties: {
      type: { enum: ['namespace'] },
      name: { type: 'string' },
      description: { type: 'string' },
      tools: {
        type: 'array',
        items: {
          oneOf: [
            {
              type: 'object',
              required: ['type', 'name'],
              properties: { type: { enum: ['function'] }, name: { type: 'string' } },
            },
            { $ref: '#/components/schemas/CustomTool' },
          ],
        },
      },
    },
  },
  LocalShellTool: { type: 'object', required: ['type'], properties: { type: { enum: ['local_shell'] } } },
};

function customToolInputEvent(type: string, field: 'delta' | 'input'): Schema {
  return {
    type: 'object',
    required: ['type', 'sequence_number', 'item_id', 'output_index', field],
    properties: {
      type: { enum: [type] },
      sequence_number: { type: 'integer' },
      item_id: { type: 'string' },
      output_index: { type: 'integer' },
      [field]: { type: 'string' },
    },
  };
}

export interface OpenResponsesValidator {
  /** The schema's version (info.version). */
  version: string;
  /** The errors of a response object against `ResponseResource` (empty: valid). */
  response(body: unknown): string[];
  /** The errors of one streaming event against the schema of its `type` (an unknown type is an error). */
  event(event: unknown): string[];
}

export interface OpenResponsesExtensions {
  /** Also accept OpenAI's web search items, tools and events (see WEB_SEARCH). */
  webSearch?: boolean;
  /** Check OpenAI's reasoning text events against the schema's reasoning events (see REASONING_TEXT_EVENTS). */
  reasoningText?: boolean;
  /** Also accept Codex's tool items, tools and events (see CODEX_TOOLS). */
  codexTools?: boolean;
}

export function openResponsesValidator(options: OpenResponsesExtensions = {}): OpenResponsesValidator {
  const document = JSON.parse(readFileSync(OPEN_RESPONSES_SCHEMA, 'utf8')) as OpenApi;
  const schemas = document.components.schemas;
  const eventSchemas = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    const type = (schema.properties as { type?: { enum?: string[] } } | undefined)?.type?.enum?.[0];
    if (name.endsWith('StreamingEvent') && type !== undefined) eventSchemas.set(type, `#/components/schemas/${name}`);
  }
  if (options.webSearch) {
    Object.assign(schemas, WEB_SEARCH);
    (schemas.ItemField!.oneOf as Schema[]).push({ $ref: '#/components/schemas/WebSearchCall' });
    (schemas.Tool!.oneOf as Schema[]).push({ $ref: '#/components/schemas/WebSearchTool' });
    for (const type of WEB_SEARCH_EVENTS) {
      const name = `OpenAI:${type}`;
      schemas[name] = webSearchEvent(type);
      eventSchemas.set(type, `#/components/schemas/${name}`);
    }
  }
  if (options.reasoningText)
    for (const [type, name] of Object.entries(REASONING_TEXT_EVENTS)) {
      const renamed = `OpenAI:${type}`;
      const original = schemas[name]!;
      const properties = original.properties as Record<string, Schema>;
      schemas[renamed] = { ...original, properties: { ...properties, type: { type: 'string', enum: [type] } } };
      eventSchemas.set(type, `#/components/schemas/${renamed}`);
    }
  if (options.codexTools) {
    Object.assign(schemas, CODEX_TOOLS);
    for (const name of ['CustomToolCall', 'LocalShellCall'])
      (schemas.ItemField!.oneOf as Schema[]).push({ $ref: `#/components/schemas/${name}` });
    for (const name of ['CustomTool', 'NamespaceTool', 'LocalShellTool'])
      (schemas.Tool!.oneOf as Schema[]).push({ $ref: `#/components/schemas/${name}` });
    for (const [type, field] of [
      ['response.custom_tool_call_input.delta', 'delta'],
      ['response.custom_tool_call_input.done', 'input'],
    ] as const) {
      const name = `OpenAI:${type}`;
      schemas[name] = customToolInputEvent(type, field);
      eventSchemas.set(type, `#/components/schemas/${name}`);
    }
  }
  // strict: false: the document carries OpenAPI's own keywords (example, x-enumDescriptions, discriminator).
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'open-responses', components: { schemas } });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (pointer: string): ValidateFunction => {
    let validate = compiled.get(pointer);
    if (validate === undefined) {
      validate = ajv.getSchema(`open-responses${pointer}`)!;
      compiled.set(pointer, validate);
    }
    return validate;
  };
  const errorsOf = (validate: ValidateFunction, value: unknown): string[] =>
    validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
  return {
    version: document.info.version,
    response: (body) => errorsOf(validator('#/components/schemas/ResponseResource'), body),
    event(event) {
      const type = (event as { type?: unknown } | null)?.type;
      const pointer = typeof type === 'string' ? eventSchemas.get(type) : undefined;
      if (pointer === undefined) return [`no schema for the event type ${JSON.stringify(type)}`];
      return errorsOf(validator(pointer), event);
    },
  };
}
