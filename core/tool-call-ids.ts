// Tool-call ids in each dialect's own form, and back. Servers make their own ids (llama-server: 32 random
// letters and digits; vLLM: `chatcmpl-tool-…`, Kimi's `functions.get_weather:0`; SGLang and Ollama: `call_…`),
// while the dialects' clients expect `toolu_…` (Anthropic's tool_use.id) or `call_…` (OpenAI's call ids),
// and Anthropic's API refuses any id outside [A-Za-z0-9_-] when a conversation is sent there later. The
// mapping is pure, so nothing is remembered between requests:
// - to the client: the dialect's prefix + the server's id, unchanged when it already has the prefix; a
//   character outside [A-Za-z0-9_-] is written as `-x` + its UTF-8 bytes in hex + `-` (`.` → `-x2e-`, and
//   the `-` of a `-x` in the id as `-x2d-`, so the mapping is one-to-one); an empty id gets one made from
//   the response's id;
// - back to the server: an id with the prefix loses it (and its escapes), so the server reads its own ids
//   in the conversation; any other id (a client's own history, e.g. Anthropic's `toolu_01…`) goes as it is,
//   or without the prefix. A server id that had the prefix already comes back without it.
// Each dialect applies it to its own fields (tool_use / tool_result, tool_calls / tool_call_id,
// function_call / function_call_output); the dialects import nothing of each other.

/** The messages dialect's prefix (Anthropic's `tool_use.id`). */
export const TOOL_USE_PREFIX = 'toolu_';
/** The chat and responses dialects' prefix (OpenAI's call ids). */
export const CALL_PREFIX = 'call_';

/** What is escaped: a character outside the set, and the `-` of a `-x` already in the id (so every id maps back to itself). */
const UNSAFE = /[^A-Za-z0-9_-]|-(?=x)/gu;
const ESCAPED = /-x([0-9a-f]{2})-/g;

/** The id the client sees for the server's `upstreamId`; `generated` (unique in the response) names a call the server gave no id. */
export function clientToolCallId(prefix: string, upstreamId: string | null | undefined, generated: string): string {
  if (!upstreamId) return prefix + generated;
  const escaped = escape(upstreamId);
  if (upstreamId.startsWith(prefix) && upstreamId.length > prefix.length && escaped === upstreamId) return upstreamId;
  return prefix + escaped;
}

/** The id the server gets for an id the client sent back. */
export function upstreamToolCallId(prefix: string, clientId: string): string {
  if (!clientId.startsWith(prefix) || clientId.length === prefix.length) return clientId;
  const body = clientId.slice(prefix.length);
  if (!body.includes('-x')) return body;
  const bytes: number[] = [];
  let last = 0;
  for (const match of body.matchAll(ESCAPED)) {
    bytes.push(...Buffer.from(body.slice(last, match.index), 'latin1'), Number.parseInt(match[1]!, 16));
    last = match.index + match[0].length;
  }
  bytes.push(...Buffer.from(body.slice(last), 'latin1'));
  const id = Buffer.from(bytes).toString('utf8');
  // Only what the encoder writes is read back: anything else is some other id that happens to look alike.
  return escape(id) === body ? id : body;
}

function escape(id: string): string {
  return id.replace(UNSAFE, (char) =>
    [...Buffer.from(char, 'utf8')].map((byte) => `-x${byte.toString(16).padStart(2, '0')}-`).join(''),
  );
}
