// Requests in each dialect and what their answers say about usage, in the ledger's terms (input tokens
// neither cached nor cache-written, output, cache reads, cache writes), for the metering tests.
import type { Kysely } from 'kysely';
import type { DialectName } from '../../dialects/registry.js';
import type { Database } from '../../store/schema.js';
import { readSse } from '../kit/sse-reader.js';

export const DIALECTS: readonly DialectName[] = ['chat', 'messages', 'responses'];

export interface LedgerTokens {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

export const PATHS: Record<DialectName, string> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
};

/** A small request body in the dialect; chat streams ask for usage so the client can compare it. */
export function requestBody(
  dialect: DialectName,
  stream: boolean,
  text = 'echo: hello there',
  maxTokens = 100,
): Record<string, unknown> {
  switch (dialect) {
    case 'chat':
      return {
        model: 'qwen3-8b',
        messages: [{ role: 'user', content: text }],
        max_tokens: maxTokens,
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
      };
    case 'messages':
      return { model: 'qwen3-8b', messages: [{ role: 'user', content: text }], max_tokens: maxTokens, stream };
    case 'responses':
      return { model: 'qwen3-8b', input: text, max_output_tokens: maxTokens, stream };
  }
}

export interface MeteredAnswer {
  /** The client got the whole answer: a 200 body, or a stream up to its final event. */
  complete: boolean;
  tokens: LedgerTokens | undefined;
}

/** Reads a response to its end (or until the connection breaks) and takes the usage it reports. */
export async function readAnswer(dialect: DialectName, stream: boolean, response: Response): Promise<MeteredAnswer> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    return { complete: false, tokens: undefined };
  }
  if (response.status !== 200) return { complete: false, tokens: undefined };
  if (!stream) {
    const body = JSON.parse(text) as { usage?: Record<string, unknown> };
    return { complete: true, tokens: tokensOf(dialect, body.usage) };
  }
  const frames = readSse(text);
  const last = frames.at(-1);
  let usage: Record<string, unknown> | undefined;
  for (const frame of frames) {
    if (frame.data === '[DONE]') continue;
    const data = JSON.parse(frame.data) as {
      usage?: Record<string, unknown>;
      response?: { usage?: Record<string, unknown> };
    };
    const seen = dialect === 'responses' ? data.response?.usage : data.usage;
    if (seen) usage = seen;
  }
  const complete =
    last !== undefined &&
    (dialect === 'chat'
      ? last.event === 'message_stop' || last.data === '[DONE]'
      : dialect === 'messages'
        ? last.event === 'message_stop'
        : last.event === 'response.completed' || last.event === 'response.incomplete');
  return { complete, tokens: tokensOf(dialect, usage) };
}

/** A dialect's usage object in the ledger's terms. */
export function tokensOf(
  dialect: DialectName,
  usage: Record<string, unknown> | undefined | null,
): LedgerTokens | undefined {
  if (!usage) return undefined;
  const n = (value: unknown): number => (typeof value === 'number' ? value : 0);
  if (dialect === 'messages') {
    return {
      input_tokens: n(usage.input_tokens),
      output_tokens: n(usage.output_tokens),
      cache_read_tokens: n(usage.cache_read_input_tokens),
      cache_write_tokens: n(usage.cache_creation_input_tokens),
    };
  }
  if (dialect === 'responses') {
    const cached = n((usage.input_tokens_details as Record<string, unknown> | undefined)?.cached_tokens);
    return {
      input_tokens: n(usage.input_tokens) - cached,
      output_tokens: n(usage.output_tokens),
      cache_read_tokens: cached,
      cache_write_tokens: 0,
    };
  }
  const details = (usage.prompt_tokens_details ?? {}) as {
    cached_tokens?: number;
    cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
  };
  const cached = n(details.cached_tokens);
  const written =
    n(details.cache_creation?.ephemeral_5m_input_tokens) + n(details.cache_creation?.ephemeral_1h_input_tokens);
  return {
    input_tokens: n(usage.prompt_tokens) - cached - written,
    output_tokens: n(usage.completion_tokens),
    cache_read_tokens: cached,
    cache_write_tokens: written,
  };
}

export async function ledgerRow(db: Kysely<Database>, id: string) {
  return db.selectFrom('usage').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The ledger's rows of one key: its tokens (as the clients report them) and each row's state. */
export async function ledgerRowsOfKey(db: Kysely<Database>, keyId: string) {
  return db
    .selectFrom('usage')
    .select(['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'state'])
    .where('key_id', '=', keyId)
    .execute();
}

/** One request of a metered load, as its client saw it. */
export interface SentRequest {
  /** The x-request-id, when the gateway's response head arrived. */
  id: string | undefined;
  stream: boolean;
  /** The status of the response head, when it arrived. */
  status: number | undefined;
  complete: boolean;
  tokens: LedgerTokens | undefined;
  /** e.g. "messages stream". */
  label: string;
}

export interface MeteredLoad {
  /** The gateway's (or the balancer's) base URL. */
  url: string;
  key: string;
  /** Words of the prompt, so each load's requests say something of their own. */
  topic: string;
  /** Every request is recorded here as it is sent. */
  sent: SentRequest[];
  stop: { now: boolean };
  /** Told of each complete answer. */
  completed: () => void;
  /** When a connection breaks: send the next request (a balancer routes it to a node still up), or stop (the one gateway is gone). */
  onBreak: 'next' | 'stop';
  /** A request not answered whole within this long counts as broken (a connection left to a killed process). */
  requestTimeoutMs?: number;
}

/** One client of a load: requests back to back, rotating dialect and streaming from `index` on, until `stop`. */
export async function meteredClient(load: MeteredLoad, index: number): Promise<void> {
  for (let n = index; !load.stop.now; n++) {
    const dialect = DIALECTS[n % 3]!;
    const stream = Math.floor(n / 3) % 2 === 0;
    const record: SentRequest = {
      id: undefined,
      stream,
      status: undefined,
      complete: false,
      tokens: undefined,
      label: `${dialect} ${stream ? 'stream' : 'body'}`,
    };
    load.sent.push(record);
    try {
      const response = await fetch(load.url + PATHS[dialect], {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${load.key}` },
        body: JSON.stringify(requestBody(dialect, stream, `Say something about ${load.topic}, number ${n}.`, 40)),
        ...(load.requestTimeoutMs === undefined ? {} : { signal: AbortSignal.timeout(load.requestTimeoutMs) }),
      });
      record.status = response.status;
      record.id = response.headers.get('x-request-id') ?? undefined;
      const answer = await readAnswer(dialect, stream, response);
      record.complete = answer.complete;
      record.tokens = answer.tokens;
      if (answer.complete) load.completed();
    } catch {
      if (load.onBreak === 'stop') return;
    }
  }
}

/** A usage row as far as a load's check reads it. */
interface SettledRow {
  id: string;
  state: string;
  status: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/**
 * The complete answers of a load against the ledger: `lost`, those without a settled row; `differing`,
 * those whose row holds other token counts than the answer reported, or another status than 200.
 */
export function checkSettled(
  completed: readonly SentRequest[],
  rows: readonly SettledRow[],
): { lost: string[]; differing: string[] } {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const lost: string[] = [];
  const differing: string[] = [];
  for (const record of completed) {
    const row = byId.get(record.id ?? '');
    if (row === undefined || row.state !== 'settled') {
      lost.push(`${record.label} ${record.id} (${row?.state ?? 'no row'})`);
      continue;
    }
    const tokens: LedgerTokens = {
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      cache_read_tokens: row.cache_read_tokens,
      cache_write_tokens: row.cache_write_tokens,
    };
    if (JSON.stringify(tokens) !== JSON.stringify(record.tokens))
      differing.push(
        `${record.label} ${record.id}: row ${JSON.stringify(tokens)}, answer ${JSON.stringify(record.tokens)}`,
      );
    if (row.status !== 200) differing.push(`${record.label} ${record.id}: status ${row.status}`);
  }
  return { lost, differing };
}
