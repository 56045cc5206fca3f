// Mutations of structure: nesting 1,000 to 20,000 deep, arrays grown to the body limit or just past it,
// repeated and prototype keys, unknown fields, content blocks and tools.
import type { Draft, Mutation } from '../fuzz-case.js';
import {
  copyNode,
  field,
  fromValue,
  isObject,
  locations,
  object,
  raw,
  replaceAt,
  setField,
  toText,
  valueAt,
  type JsonNode,
  type Location,
  type ObjectNode,
} from '../json-tree.js';
import type { Prng } from '../prng.js';

/** Nested JSON text `depth` levels deep, in one of four shapes. */
function nested(depth: number, rng: Prng): { text: string; shape: string } {
  switch (rng.int(0, 3)) {
    case 0:
      return { text: '['.repeat(depth) + ']'.repeat(depth), shape: 'arrays' };
    case 1:
      return { text: '{"a":'.repeat(depth) + '1' + '}'.repeat(depth), shape: 'objects' };
    case 2:
      return { text: '[{"a":'.repeat(depth) + 'null' + '}]'.repeat(depth), shape: 'arrays of objects' };
    default:
      // Blocks whose content is blocks: what a recursive content walker follows.
      return {
        text: '[{"type":"text","text":"x","content":'.repeat(depth) + '[]' + '}]'.repeat(depth),
        shape: 'blocks',
      };
  }
}

/** Places where a real client's nested data goes and the gateway walks it. */
const RECURSIVE_SPOTS =
  /^(messages\[\d+\]\.content|input|metadata|tools\[\d+\]\.(input_schema|function\.parameters)|messages\[\d+\]\.content\[\d+\]\.(input|content)|system|text)$/;

export const deepNesting: Mutation = {
  name: 'deep-nesting',
  stage: 'tree',
  weight: 6,
  apply(draft, rng) {
    const depth = rng.logInt(1000, 20_000);
    const { text, shape } = nested(depth, rng);
    const all = locations(draft.tree);
    const spots = all.filter((place) => RECURSIVE_SPOTS.test(place.path));
    const location = spots.length > 0 && rng.chance(0.6) ? rng.pick(spots) : all.length > 0 ? rng.pick(all) : undefined;
    if (location === undefined) return undefined;
    replaceAt(location, raw(text));
    return `${location.path}: ${shape} ${depth} deep`;
  },
};

export const hugeArray: Mutation = {
  name: 'huge-array',
  stage: 'tree',
  weight: 2,
  apply(draft, rng, context) {
    const arrays = locations(draft.tree).filter(
      (place) => Array.isArray(valueAt(place)) && (valueAt(place) as JsonNode[]).length > 0,
    );
    if (arrays.length === 0) return undefined;
    const location = rng.pick(arrays);
    const items = valueAt(location) as JsonNode[];
    const item = toText(rng.pick(items));
    // Half just past the limit (the 413 path), half below it (the whole chain sees it).
    const over = rng.chance(0.5);
    const target = over
      ? context.bodyLimitBytes + rng.int(1, 64 * 1024)
      : rng.logInt(16 * 1024, context.bodyLimitBytes - 1024);
    const others = Buffer.byteLength(toText(draft.tree)) - Buffer.byteLength(toText(items));
    const count = Math.max(1, Math.floor((target - others) / (Buffer.byteLength(item) + 1)));
    replaceAt(location, raw(`[${Array(count).fill(item).join(',')}]`));
    return `${location.path}: ${count} items (${over ? 'over' : 'under'} the limit)`;
  },
};

function objectLocations(draft: Draft): { node: ObjectNode; path: string }[] {
  const found: { node: ObjectNode; path: string }[] = isObject(draft.tree)
    ? [{ node: draft.tree, path: '(root)' }]
    : [];
  for (const place of locations(draft.tree)) {
    const value = valueAt(place);
    if (isObject(value)) found.push({ node: value, path: place.path });
  }
  return found;
}

export const duplicateKey: Mutation = {
  name: 'duplicate-key',
  stage: 'tree',
  weight: 5,
  apply(draft, rng) {
    const candidates = objectLocations(draft).filter(({ node }) => node.entries.length > 0);
    if (candidates.length === 0) return undefined;
    // The root's keys (model, max_tokens, stream, messages) most often: the ones a parser's choice matters for.
    const { node, path } = rng.chance(0.6) ? candidates[0]! : rng.pick(candidates);
    const [key, value] = rng.pick(node.entries);
    const other = rng.pick<JsonNode>([
      raw('1E400'),
      'gpt-4o',
      true,
      null,
      object(),
      [],
      typeof value === 'boolean' ? !value : 'x',
      raw('123456789012345678901234567890'),
    ]);
    if (rng.chance(0.5)) node.entries.push([key, other]);
    else node.entries.unshift([key, other]);
    return `${path}.${key} twice`;
  },
};

const PROTOTYPE_VALUES: JsonNode[] = [
  fromValue({ max_tokens: 1e30, model: 'qwen3-8b', stream: true, admin: true, balance_micros: 1e15 }),
  fromValue({ prototype: { polluted: true, toString: 1 } }),
  fromValue({ constructor: { prototype: { isAdmin: true } } }),
  fromValue({ toString: 'x', valueOf: 1, hasOwnProperty: null }),
  null,
  'x',
  [],
  1,
];

export const prototypeKey: Mutation = {
  name: 'prototype-key',
  stage: 'tree',
  weight: 5,
  apply(draft, rng) {
    const candidates = objectLocations(draft);
    if (candidates.length === 0) return undefined;
    const { node, path } = rng.chance(0.5) ? candidates[0]! : rng.pick(candidates);
    const key = rng.pick(['__proto__', 'constructor', 'prototype', '__defineGetter__', 'hasOwnProperty', 'toString']);
    node.entries.splice(rng.int(0, node.entries.length), 0, [key, copyNode(rng.pick(PROTOTYPE_VALUES))]);
    return `${path}.${key}`;
  },
};

const UNKNOWN_BLOCKS: unknown[] = [
  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
  { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } },
  { type: 'video' },
  { type: 'server_tool_use', id: 'srvtoolu_fuzz', name: 'web_search', input: { query: 'x' } },
  {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_fuzz',
    content: [{ type: 'web_search_result', url: 'http://127.0.0.1/', title: 't', encrypted_content: 'not-sealed' }],
  },
  {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_fuzz',
    content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
  },
  { type: 'redacted_thinking', data: 'x' },
  { type: 'thinking' },
  { type: 'tool_use' },
  { type: 'tool_use', id: 'toolu_x', name: 'nope', input: 'not an object' },
  { type: 'tool_result', tool_use_id: 'toolu_missing', content: [{ type: 'image', source: {} }] },
  {
    type: 'tool_result',
    tool_use_id: 'toolu_x',
    content: [{ type: 'tool_result', tool_use_id: 'y', content: 'nested' }],
  },
  { type: 'input_image', image_url: 'http://127.0.0.1/x.png' },
  { type: 'input_file', file_id: 'file_1' },
  { type: 'input_audio', input_audio: { data: 'x', format: 'wav' } },
  { type: 'image_url', image_url: { url: 'http://127.0.0.1/x.png' } },
  { type: 'refusal', refusal: 'no' },
  { type: 'output_text', text: 'x', annotations: [{ type: 'url_citation', url: 5 }] },
  { type: 'text' },
  { type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } },
  { type: 'text', text: 'x', cache_control: { type: 'persistent' } },
  { type: '' },
  { type: null },
  {},
  { type: 'message', role: 'user', content: 'inside a block' },
  { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{' },
  { type: 'function_call_output', call_id: 'c1', output: 'x' },
  { type: 'item_reference', id: 'msg_1' },
  { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
  { type: 'reasoning', summary: [] },
  { type: 'computer_call', call_id: 'c1' },
];

export const unknownBlock: Mutation = {
  name: 'unknown-block',
  stage: 'tree',
  weight: 7,
  apply(draft, rng) {
    const block = fromValue(rng.pick(UNKNOWN_BLOCKS));
    const lists = locations(draft.tree).filter(
      (place) => /(^|\.)(content|system|input|messages)$/.test(place.path) && Array.isArray(valueAt(place)),
    );
    if (lists.length > 0) {
      const location = rng.pick(lists);
      const list = valueAt(location) as JsonNode[];
      list.splice(rng.int(0, list.length), 0, block);
      return `${location.path} + ${toText(field(block, 'type') ?? null)}`;
    }
    // Contents given as text: make one a list holding the block.
    const texts = locations(draft.tree).filter((place) => /(^|\.)(content|input)$/.test(place.path));
    if (texts.length === 0) return undefined;
    const location: Location = rng.pick(texts);
    replaceAt(location, [block]);
    return `${location.path} = [${toText(field(block, 'type') ?? null)}]`;
  },
};

const UNKNOWN_TOOLS: unknown[] = [
  { type: 'computer_20241022', name: 'computer', display_width_px: 1024, display_height_px: 768 },
  { type: 'bash_20250124', name: 'bash' },
  { type: 'text_editor_20250124', name: 'str_replace_editor' },
  { type: 'code_execution_20250522', name: 'code_execution' },
  { type: 'web_fetch_20250910', name: 'web_fetch' },
  { type: 'web_search_20990101', name: 'web_search' },
  { type: 'web_search_20250305', name: 'web_search', max_uses: 0 },
  { type: 'web_search_20250305', name: 'web_search', max_uses: 1e30 },
  { type: 'web_search_20250305', name: 'web_search', allowed_domains: ['a.example'], blocked_domains: ['b.example'] },
  {
    type: 'web_search_20250305',
    name: 'web_search',
    allowed_domains: [1, null],
    user_location: { type: 'approximate', city: 5 },
  },
  { type: 'web_search_20250305', name: 'not_web_search' },
  { type: 'web_search', search_context_size: 'huge' },
  {
    type: 'web_search',
    filters: { allowed_domains: 'example.com' },
    user_location: { type: 'approximate', country: 'ZZZ' },
  },
  { type: 'web_search_preview', filters: null },
  { type: 'file_search', vector_store_ids: ['vs_1'] },
  { type: 'mcp', server_label: 'x', server_url: 'http://127.0.0.1:1/' },
  { type: 'image_generation' },
  { type: 'local_shell' },
  { type: 'custom', name: 'x' },
  { type: 'function' },
  { type: 'function', name: 'f', parameters: { type: 'object' } },
  { type: 'function', function: { name: 'bad name!', parameters: 'not a schema' } },
  { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { $ref: '#' } } } } },
  { name: 'no_schema' },
  { name: 'x'.repeat(200), input_schema: { type: 'object' } },
  { name: 'get_weather', input_schema: { type: 'object' } },
  'web_search',
  null,
];

export const unknownTool: Mutation = {
  name: 'unknown-tool',
  stage: 'tree',
  weight: 7,
  apply(draft, rng) {
    if (!isObject(draft.tree)) return undefined;
    const tool = fromValue(rng.pick(UNKNOWN_TOOLS));
    const tools = field(draft.tree, 'tools');
    if (Array.isArray(tools)) tools.splice(rng.int(0, tools.length), 0, tool);
    else setField(draft.tree, 'tools', [tool]);
    return toText(tool).slice(0, 80);
  },
};

/** Fields real clients or attackers send that the routes do not list: upstream switches, other vendors' features, state. */
const UNKNOWN_FIELDS: [string, unknown][] = [
  ['chat_template', '{{ "pwned" }}'],
  ['ignore_eos', true],
  ['min_tokens', 30000],
  ['guided_json', { type: 'object' }],
  ['vllm_xargs', { a: 1 }],
  ['logprobs', true],
  ['n', 2],
  ['response_format', { type: 'json_object' }],
  ['web_search_options', {}],
  ['modalities', ['audio']],
  ['audio', { voice: 'x' }],
  ['reasoning_effort', 'high'],
  ['thinking', { type: 'enabled', budget_tokens: 1e30 }],
  ['previous_response_id', 'resp_fuzz'],
  ['conversation', 'conv_fuzz'],
  ['background', true],
  ['prompt', { id: 'pmpt_1' }],
  ['include', ['reasoning.encrypted_content']],
  ['context_management', { edits: [] }],
  ['container', 'x'],
  ['mcp_servers', [{ type: 'url', url: 'http://127.0.0.1:1/' }]],
  ['tool_choice', { type: 'tool', name: 'missing_tool' }],
  ['tool_choice', 'any'],
  ['tool_choice', { type: 'function', function: { name: 'missing' } }],
  ['text', { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } }],
  ['system', 5],
  ['instructions', null],
  ['user', 'u'.repeat(10_000)],
];

export const unknownField: Mutation = {
  name: 'unknown-field',
  stage: 'tree',
  weight: 6,
  apply(draft, rng) {
    if (!isObject(draft.tree)) return undefined;
    const [name, value] = rng.pick(UNKNOWN_FIELDS);
    setField(draft.tree, name, fromValue(value));
    return name;
  },
};
