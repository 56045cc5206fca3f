// A client that leaves in front of a real llama-server: the server cancels the task, and the ledger bills
// what the server produced (its running usage), streamed and not, in every dialect. The server runs with
// --ignore-eos, so every answer would run on to its max_tokens.
import t from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { ledgerRow } from '../helpers/metered-answers.js';
import { requestLine } from '../helpers/stack.js';
import { PATHS, requestBody } from './dialect-answers.js';
import { ledgerCheck, startLlamaStack, type LlamaStack, TIER_TIMEOUT_MS } from './llama-stack.js';

t.setTimeout(TIER_TIMEOUT_MS);

const DIALECTS: readonly DialectName[] = ['chat', 'messages', 'responses'];
/** Far more than is read before the client leaves. */
const MAX_TOKENS = 1000;

let llama: LlamaStack;
t.before(async () => {
  llama = await startLlamaStack(t, { ignoreEos: true });
});

function post(dialect: DialectName, stream: boolean, signal: AbortSignal): Promise<Response> {
  return fetch(llama.url + PATHS[dialect], {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${llama.key}` },
    body: JSON.stringify(requestBody({ dialect, stream, thinking: false, maxTokens: MAX_TOKENS })),
    signal,
  });
}

/** The prompt the server tokenizes for the question, as count_tokens counts it (equal: limits.test.ts). */
async function promptTokens(): Promise<number> {
  const response = await fetch(`${llama.url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${llama.key}` },
    body: JSON.stringify({
      ...requestBody({ dialect: 'messages', stream: false, thinking: false }),
      max_tokens: undefined,
      stream: undefined,
    }),
  });
  return ((await response.json()) as { input_tokens: number }).input_tokens;
}

/** How many tokens llama-server had decoded when it released the slot: its log's `n_tokens` less the prompt. */
function producedTokens(releaseLine: string, prompt: number): number {
  const match = /stop processing: n_tokens = (\d+)/.exec(releaseLine);
  if (!match) throw new Error(`not a release line: ${releaseLine}`);
  // The last token sampled is not yet in the slot's cache when it is released.
  return Number(match[1]) + 1 - prompt;
}

/** The tokens decoded so far by the slot that is processing (llama-server's GET /slots). */
async function decodedTokens(): Promise<number> {
  const slots = (await (await fetch(`${llama.llama.url}/slots`)).json()) as Array<{
    is_processing: boolean;
    next_token?: Array<{ n_decoded: number }>;
  }>;
  return Math.max(0, ...slots.filter((slot) => slot.is_processing).map((slot) => slot.next_token?.[0]?.n_decoded ?? 0));
}

async function settledRow(id: string) {
  await requestLine(llama.stack, id);
  const row = await ledgerRow(llama.store.db, id);
  if (row?.state !== 'settled') throw new Error(`no settled row for ${id}: ${row?.state ?? 'no row'}`);
  return row;
}

for (const dialect of DIALECTS) {
  t.test(
    `${dialect}: a client that leaves a stream makes llama-server cancel, and pays what the server produced`,
    async (t) => {
      const prompt = await promptTokens();
      const client = new AbortController();
      const cancelled = llama.llama.printed(/cancel task/);
      const released = llama.llama.printed(/stop processing: n_tokens/);
      const response = await post(dialect, true, client.signal);
      t.equal(response.status, 200);
      const id = response.headers.get('x-request-id')!;
      // Read until five Hellos have come (at least 13 tokens: Hello, world, ! four times, and a Hello), then leave.
      const reader = response.body!.getReader();
      let received = '';
      while (received.split('Hello').length < 6) received += new TextDecoder().decode((await reader.read()).value);
      client.abort();
      await cancelled;
      const produced = producedTokens(await released, prompt);
      const row = await settledRow(id);
      t.equal(row.input_tokens, prompt, 'the prompt as the server counted it, not an estimate');
      t.ok(
        row.output_tokens >= 13 && row.output_tokens <= produced,
        `output billed (${row.output_tokens}) is what the server had produced (${produced}) when it heard of the abort`,
      );
    },
  );

  t.test(
    `${dialect}: a client that leaves a non-streamed request pays what the server produced, not nothing`,
    async (t) => {
      const prompt = await promptTokens();
      const client = new AbortController();
      const cancelled = llama.llama.printed(/cancel task/);
      const released = llama.llama.printed(/stop processing: n_tokens/);
      const answer = post(dialect, false, client.signal).catch((error: unknown) => error);
      // Leave once the server has decoded some tokens (its /slots tells, request by request).
      while ((await decodedTokens()) < 20);
      const earlier = new Set(llama.stack.logs.map((line) => (JSON.parse(line) as { requestId?: string }).requestId));
      const line = llama.stack.logged(
        (entry) => entry.msg === 'request' && entry.aborted === true && !earlier.has(entry.requestId as string),
      );
      client.abort();
      t.match(await answer, { name: 'AbortError' });
      await cancelled;
      const produced = producedTokens(await released, prompt);
      const requestId = String((await line).requestId);
      const row = await settledRow(requestId);
      t.equal(row.status, 499);
      t.equal(row.input_tokens, prompt, 'the prompt as the server counted it');
      t.ok(
        row.output_tokens > 0 && row.output_tokens <= produced,
        `output billed (${row.output_tokens}) is what the server produced (${produced})`,
      );
    },
  );
}

t.test('the ledger balances', async (t) => {
  const checked = ledgerCheck(llama.stack);
  t.equal(checked.code, 0, checked.out + checked.err);
});
