// Money is exact under any input (issue #11): every token limit a client sends is an integer from 1 to
// the model's context, checked before anything is held, so no request can make a hold, a cost or a
// balance a float; after any of them the books balance exactly.
import t, { type Test } from 'tap';
import { auditBalances } from '../../store/balance-audit.js';
import type { Store } from '../../store/store.js';
import { startStack, type Stack } from '../helpers/stack.js';

const CONTEXT = 32768;
let stack: Stack;
let store: Store;
let key: string;
let orgId: string;

t.before(async () => {
  stack = await startStack({
    yaml: `model:\n  max_context_tokens: ${CONTEXT}\nplugins:\n  - name: auth\n  - name: meter\n`,
  });
  store = await stack.store();
  orgId = (await store.orgs.create('acme')).id;
  await store.orgs.addCredits('acme', 117_440_000);
  key = (await store.keys.create('acme', 'tests')).key;
});
t.teardown(() => stack.close());

/** Posts a body given as raw JSON text, so that number literals reach the gateway exactly as written. */
async function postRaw(
  path: string,
  text: string,
): Promise<{ status: number; body: { error?: { param?: string | null; message: string } } }> {
  const response = await fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: text,
  });
  return {
    status: response.status,
    body: (await response.json()) as { error?: { param?: string | null; message: string } },
  };
}

async function balanceAfter(t: Test, path: string, text: string, param: string): Promise<void> {
  const before = (await store.orgs.get(orgId)).balanceMicros;
  const answer = await postRaw(path, text);
  t.equal(answer.status, 400, `${text}: 400`);
  t.equal(answer.body.error?.param, param, 'the error names the field');
  t.equal((await store.orgs.get(orgId)).balanceMicros, before, 'the balance did not move');
  const [audit] = await auditBalances(store.db, orgId);
  t.equal(audit?.discrepancyMicros, 0, 'the books balance');
}

const chat = (field: string, literal: string): string =>
  `{"model":"qwen3-8b","${field}":${literal},"messages":[{"role":"user","content":"hi"}]}`;
const responses = (field: string, literal: string): string => `{"model":"qwen3-8b","${field}":${literal},"input":"hi"}`;

t.test('regression: max_tokens 1e30 on chat took a balance of 117.44 credits to 0', async (t) => {
  await balanceAfter(t, '/v1/chat/completions', chat('max_tokens', '1e30'), 'max_tokens');
});

t.test('regression: max_completion_tokens 1e23 on chat created 6.78 credits from nothing', async (t) => {
  await balanceAfter(t, '/v1/chat/completions', chat('max_completion_tokens', '1e23'), 'max_completion_tokens');
});

t.test('regression: a 30-digit max_tokens literal erased 10,010 credits and wrote a hold of 9.87e28', async (t) => {
  await balanceAfter(t, '/v1/chat/completions', chat('max_tokens', '123456789012345678901234567890'), 'max_tokens');
  const holds = await store.db.selectFrom('usage').select('hold_micros').where('org_id', '=', orgId).execute();
  t.ok(
    holds.every((row) => Number.isSafeInteger(row.hold_micros)),
    'every hold in the ledger is a safe integer',
  );
});

t.test('regression: max_output_tokens and max_tokens on /v1/responses had no upper bound', async (t) => {
  await balanceAfter(t, '/v1/responses', responses('max_output_tokens', '1e30'), 'max_output_tokens');
  await balanceAfter(t, '/v1/responses', responses('max_tokens', '1e23'), 'max_tokens');
});

t.test('a token limit is an integer from 1 to the model context', async (t) => {
  for (const literal of ['0', '-1', '1.5', `${CONTEXT + 1}`, '"100"']) {
    await balanceAfter(t, '/v1/chat/completions', chat('max_tokens', literal), 'max_tokens');
  }
  // The prompt takes part of the context too: the upstream refuses what does not fit, the gateway the rest.
  const fits = await postRaw('/v1/chat/completions', chat('max_tokens', `${CONTEXT - 64}`));
  t.equal(fits.status, 200, 'a limit within the context is allowed');
  const messages = await postRaw(
    '/v1/messages',
    `{"model":"qwen3-8b","max_tokens":8001,"messages":[{"role":"user","content":"hi"}]}`,
  );
  t.equal(messages.status, 400, 'the message dialect keeps the spec limit of 8000');
});

t.test(
  'after settled requests the balance is credits added minus settled costs minus open holds, exactly',
  async (t) => {
    for (let i = 0; i < 5; i++) t.equal((await postRaw('/v1/chat/completions', chat('max_tokens', '64'))).status, 200);
    const [audit] = await auditBalances(store.db, orgId);
    t.ok(audit!.settledCostMicros > 0, 'something was spent');
    t.equal(audit!.openHoldsMicros, 0, 'no hold is left open');
    t.equal(audit!.discrepancyMicros, 0);
  },
);

t.test('without model.max_context_tokens the token limit is the context the upstream reports', async (t) => {
  const small = await startStack({ sim: { maxModelLen: 4096 } });
  t.teardown(() => small.close());
  const response = await fetch(`${small.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: chat('max_tokens', '4097'),
  });
  t.equal(response.status, 400);
  t.match(await response.json(), { error: { param: 'max_tokens' } }, "the gateway's own 400, naming the field");
  t.ok(
    small.logs.some((line) => line.includes('"max_context_tokens":4096')),
    'the start says where the context came from',
  );
});
