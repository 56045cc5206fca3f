// A 402 is a response to an authenticated request like any other (docs/rate-limits.md, "Headers"): it
// carries the organization's rate-limit headers, in every dialect, streamed or not.
import t from 'tap';
import { DIALECTS, PATHS, requestBody } from '../helpers/metered-answers.js';
import { startStack, type Stack } from '../helpers/stack.js';

const yaml = `limits:
  window_ms: 60000
  tiers:
    - { name: Start, from_spend: 0, requests_per_minute: 10, input_tokens_per_minute: 10000, output_tokens_per_minute: 10000 }
plugins:
  - name: auth
  - name: ratelimit
  - name: meter
`;

let stack: Stack;
let key: string;
t.before(async () => {
  stack = await startStack({ yaml });
  const store = await stack.store();
  await store.orgs.create('broke');
  key = (await store.keys.create('broke', 'k')).key;
});
t.teardown(() => stack.close());

const HEADERS = ['requests', 'input-tokens', 'output-tokens'].flatMap((kind) =>
  ['limit', 'remaining', 'reset'].map((part) => `svc-ratelimit-${kind}-${part}`),
);

t.test('a 402 carries the rate-limit headers, in every dialect, streamed or not', async (t) => {
  for (const dialect of DIALECTS)
    for (const stream of [false, true]) {
      const response = await fetch(stack.gateway.url + PATHS[dialect], {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(requestBody(dialect, stream)),
      });
      await response.arrayBuffer();
      t.equal(response.status, 402, `${dialect}, stream ${stream}`);
      t.same(
        HEADERS.filter((name) => response.headers.get(name) === null),
        [],
        `${dialect}, stream ${stream}: all nine headers`,
      );
      t.equal(response.headers.get('svc-ratelimit-requests-limit'), '10');
    }
});
