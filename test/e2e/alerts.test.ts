// Threshold alerts through the gateway (issue #28): a request that takes the balance below a rule's
// threshold reaches the organization's admins by e-mail (a real SMTP round trip) and its webhook endpoint,
// signed; the admin and member APIs manage rules and endpoints, refuse bad input with a 400 naming the
// field, and show no other organization's.
import t from 'tap';
import { verifyWebhookSignature } from '../../notify/webhook-signature.js';
import { consoleEnvironment, mailTo } from '../helpers/console.js';
import { signInByEmail, type ConsoleMember } from '../helpers/console-member.js';
import { startSmtp } from '../helpers/smtp.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { stackForFile } from '../kit/file-stack.js';
import { chainOf } from '../kit/stack-presets.js';

const TOKEN = 'admin-token-for-tests-0123456789';
const smtp = await startSmtp();
t.teardown(() => smtp.close());
const hooks = await startWebhookReceiver();
t.teardown(() => hooks.close());
const stack = await stackForFile(t, {
  yaml: chainOf('auth', { name: 'alerts', options: '{ poll_ms: 20, allow_private_networks: true }' }, 'meter'),
  env: {
    GATEWAY_ADMIN_TOKEN: TOKEN,
    GATEWAY_ADMIN_PORT: '0',
    ...consoleEnvironment(smtp),
    ...(await freshStoreEnvironment()),
  },
});
const store = await stack.store();
const adminUrl = stack.gateway.adminUrl!;
const acme = await store.orgs.create('acme', [
  { email: 'ada@acme.example', role: 'admin' },
  { email: 'bob@acme.example', role: 'member' },
]);
const other = await store.orgs.create('globex', [{ email: 'gil@globex.example', role: 'admin' }]);
await store.orgs.addCredits(acme.id, 1_000_000);
const { key } = await store.keys.create(acme.id, 'laptop');

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function admin(method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${adminUrl}/admin/v1/orgs${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

t.test(
  "a request that takes the balance below a rule's threshold alerts the admins by e-mail and the webhook, signed",
  async (t) => {
    const rule = await admin('POST', `/${acme.id}/alert-rules`, { kind: 'balance_below', threshold_micros: 1_000_000 });
    t.equal(rule.status, 201);
    const endpoint = await admin('POST', `/${acme.id}/webhooks`, { url: hooks.url, description: 'billing' });
    t.equal(endpoint.status, 201);
    const secret = endpoint.body.secret as string;
    t.match(secret, /^whsec_/, 'the secret is shown at creation');
    const listed = await admin('GET', `/${acme.id}/webhooks`);
    t.notMatch(JSON.stringify(listed.body), secret, 'and never again');

    const seen = smtp.received.length;
    const answer = await fetch(`${stack.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 }),
    });
    t.equal(answer.status, 200);
    await answer.text();

    const [delivery] = await hooks.delivered(1);
    const event = JSON.parse(delivery!.body) as {
      id: string;
      type: string;
      org_id: string;
      data: Record<string, unknown>;
    };
    t.match(event, {
      type: 'balance.below',
      org_id: acme.id,
      data: { rule_id: rule.body.id, threshold_micros: 1_000_000 },
    });
    t.ok(verifyWebhookSignature(secret, delivery!.headers['gateway-signature'] as string, delivery!.body), 'signed');
    t.equal(delivery!.headers['gateway-event-id'], event.id);

    const mail = await mailTo(smtp, 'ada@acme.example', seen);
    t.same(mail.to, ['ada@acme.example'], 'to the admins only');
    t.match(mail.headers.subject, /acme: balance below 1(\.0+)? credits/);
    t.match(mail.text, event.id);

    const log = await admin('GET', `/${acme.id}/webhooks/${endpoint.body.id as string}/deliveries`);
    t.match(log.body, { deliveries: [{ event_id: event.id, attempt: 1, status: 'delivered', response_status: 200 }] });
  },
);

t.test('a test event reaches the endpoint it is sent to', async (t) => {
  const endpoints = await admin('GET', `/${acme.id}/webhooks`);
  const endpoint = (endpoints.body.endpoints as Array<{ id: string }>)[0]!;
  const before = hooks.received.length;
  const sent = await admin('POST', `/${acme.id}/webhooks/${endpoint.id}/test`);
  t.equal(sent.status, 202);
  const delivered = await hooks.delivered(before + 1);
  t.match(JSON.parse(delivered[before]!.body), { id: sent.body.event_id, type: 'test' });
});

t.test('bad input gets a 400 naming the field', async (t) => {
  const rules = `/${acme.id}/alert-rules`;
  const cases: Array<[string, string, unknown, string]> = [
    [rules, 'negative threshold', { kind: 'balance_below', threshold_micros: -5 }, 'threshold_micros'],
    [rules, 'huge threshold', { kind: 'balance_below', threshold_micros: 1e30 }, 'threshold_micros'],
    [rules, 'fractional micros', { kind: 'balance_below', threshold_micros: 1.5 }, 'threshold_micros'],
    [rules, 'threshold as text', { kind: 'balance_below', threshold_micros: '5' }, 'threshold_micros'],
    [rules, 'unknown kind', { kind: 'balance_above', threshold_micros: 5 }, 'kind'],
    [
      rules,
      'percent over 100',
      { kind: 'cap_pct', scope: 'key', scope_id: 'k', threshold_pct: 150, period: 'day' },
      'threshold_pct',
    ],
    [
      rules,
      'percent of 0',
      { kind: 'cap_pct', scope: 'key', scope_id: 'k', threshold_pct: 0, period: 'day' },
      'threshold_pct',
    ],
    [
      rules,
      'unknown period',
      { kind: 'cap_pct', scope: 'key', scope_id: 'k', threshold_pct: 50, period: 'year' },
      'period',
    ],
    [
      rules,
      'unknown key',
      { kind: 'cap_pct', scope: 'key', scope_id: 'key_nope', threshold_pct: 50, period: 'day' },
      'scope_id',
    ],
    [
      rules,
      'unknown member',
      { kind: 'cap_pct', scope: 'member', scope_id: 'zed@acme.example', threshold_pct: 50, period: 'day' },
      'scope_id',
    ],
    [rules, 'no scope id', { kind: 'cap_pct', scope: 'member', threshold_pct: 50, period: 'day' }, 'scope_id'],
    [
      rules,
      'unknown scope',
      { kind: 'cap_pct', scope: 'team', scope_id: 'x', threshold_pct: 50, period: 'day' },
      'scope',
    ],
    [`/${acme.id}/webhooks`, 'not http', { url: 'ftp://example.com/hook' }, 'url'],
    [`/${acme.id}/webhooks`, 'not a URL', { url: 'hooks here' }, 'url'],
    [`/${acme.id}/webhooks`, 'no URL', {}, 'url'],
    [`/${acme.id}/webhooks`, 'credentials in the URL', { url: 'https://user:pw@example.com/' }, 'url'],
    [
      `/${acme.id}/webhooks`,
      'long description',
      { url: 'https://example.com/', description: 'x'.repeat(201) },
      'description',
    ],
  ];
  for (const [path, what, body, field] of cases) {
    const answer = await admin('POST', path, body);
    t.equal(answer.status, 400, what);
    t.match(answer.body, { error: { code: 'invalid_request', field } }, what);
  }
  t.equal(((await admin('GET', `/${acme.id}/alert-rules`)).body.rules as unknown[]).length, 1, 'nothing was created');
});

t.test(
  "another organization's rules and endpoints are 404 in the console, and members other than admins get 403",
  async (t) => {
    const gil: ConsoleMember = await signInByEmail(stack.gateway.consoleUrl!, smtp, 'gil@globex.example');
    const acmeRules = (await admin('GET', `/${acme.id}/alert-rules`)).body.rules as Array<{ id: string }>;
    const acmeHooks = (await admin('GET', `/${acme.id}/webhooks`)).body.endpoints as Array<{ id: string }>;
    t.equal((await gil.call('GET', `/console/v1/orgs/${acme.id}/alert-rules`)).status, 404, "acme's rules");
    t.equal((await gil.call('GET', `/console/v1/orgs/${acme.id}/webhooks`)).status, 404, "acme's endpoints");
    t.equal(
      (await gil.call('DELETE', `/console/v1/orgs/${other.id}/alert-rules/${acmeRules[0]!.id}`)).status,
      404,
      "acme's rule under globex",
    );
    for (const path of ['deliveries', 'test'])
      t.equal(
        (
          await gil.call(
            path === 'test' ? 'POST' : 'GET',
            `/console/v1/orgs/${other.id}/webhooks/${acmeHooks[0]!.id}/${path}`,
          )
        ).status,
        404,
        `acme's endpoint's ${path} under globex`,
      );
    t.equal((await gil.call('GET', `/console/v1/orgs/${other.id}/alert-rules`)).status, 200, 'its own');

    const bob = await signInByEmail(stack.gateway.consoleUrl!, smtp, 'bob@acme.example');
    t.equal(
      (await bob.call('GET', `/console/v1/orgs/${acme.id}/webhooks`)).status,
      403,
      'a member who is not an admin',
    );
    const ada = await signInByEmail(stack.gateway.consoleUrl!, smtp, 'ada@acme.example');
    const created = await ada.call('POST', `/console/v1/orgs/${acme.id}/alert-rules`, {
      kind: 'balance_below',
      threshold_micros: 5,
    });
    t.equal(created.status, 201, 'an admin manages them in the console');
    t.equal(
      (await ada.call('DELETE', `/console/v1/orgs/${acme.id}/alert-rules/${created.body.id as string}`)).status,
      204,
    );
  },
);
