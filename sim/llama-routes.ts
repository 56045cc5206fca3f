// llama-server's routes beside chat completions (tools/server/server.cpp and server-context.cpp):
// GET /health and /v1/health `{"status":"ok"}`; GET /props; GET /models and /v1/models;
// POST /tokenize `{content, add_special?, parse_special?, with_pieces?}` → `{tokens}`;
// POST /detokenize `{tokens}` → `{content}`; POST /apply-template (a chat body) → `{prompt}`, the
// prompt its chat endpoint would build (a trailing assistant message continued). These are what the
// gateway's llama-server token counter (tokenizer/upstream-counter.ts) and context probe call.
import { chatPrompt } from './chat-prompt.js';
import { isRecord } from './chat-request.js';
import { badRequest } from './errors.js';
import type { RouteAnswer, ServedModel } from './flavor.js';
import { parseLlamaChatRequest } from './llama-request.js';
import { llamaModels, llamaProps } from './llama-server-info.js';
import { decode, encode, tokenBytes, vocabSize } from './qwen3-prompt.js';

export function llamaRoute(key: string, body: () => unknown, model: ServedModel): RouteAnswer | undefined {
  switch (key) {
    case 'GET /health':
    case 'GET /v1/health':
      return { status: 200, body: { status: 'ok' } };
    case 'GET /props':
      return { status: 200, body: llamaProps(model) };
    case 'GET /models':
    case 'GET /v1/models':
      return { status: 200, body: llamaModels(model) };
    case 'POST /tokenize':
      return { status: 200, body: tokenize(body()) };
    case 'POST /detokenize':
      return { status: 200, body: detokenize(body()) };
    case 'POST /apply-template':
      return { status: 200, body: { prompt: chatPrompt(parseLlamaChatRequest(body()).request).text } };
    default:
      return undefined;
  }
}

type Piece = string | number[];

/**
 * Special-token text always becomes its token (parse_special's default, and what the gateway sends);
 * Qwen3 has no BOS to add, so add_special changes nothing. No `content`: no tokens.
 */
function tokenize(body: unknown): { tokens: number[] | Array<{ id: number; piece: Piece }> } {
  if (!isRecord(body)) throw badRequest('The request body must be a JSON object.');
  const { content } = body;
  let ids: number[] = [];
  if (typeof content === 'string') ids = encode(content);
  else if (Array.isArray(content)) {
    // tokenize_mixed: strings are tokenized, numbers are token ids.
    ids = content.flatMap((part: unknown) => (typeof part === 'number' ? [part] : encode(String(part))));
  } else if (content !== undefined) throw badRequest('"content" must be a string or an array');
  if (body.with_pieces !== true) return { tokens: ids };
  return { tokens: ids.map((id) => ({ id, piece: piece(id) })) };
}

/** A token's text, or its bytes when they are not valid UTF-8 alone. */
function piece(id: number): Piece {
  const bytes = tokenBytes(id);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return [...bytes];
  }
}

function detokenize(body: unknown): { content: string } {
  if (!isRecord(body)) throw badRequest('The request body must be a JSON object.');
  const { tokens } = body;
  if (tokens === undefined) return { content: '' };
  const size = vocabSize();
  if (!Array.isArray(tokens) || !tokens.every((t): t is number => Number.isInteger(t) && t >= 0 && t < size)) {
    throw badRequest(`"tokens" must be an array of token ids (0 to ${size - 1})`);
  }
  return { content: decode(tokens) };
}
