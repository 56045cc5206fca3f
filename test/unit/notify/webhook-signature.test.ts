// The webhook signature a receiver checks: HMAC-SHA256 over `<t>.<raw body>` with the endpoint's secret.
import t from 'tap';
import { signWebhook, verifyWebhookSignature } from '../../../notify/webhook-signature.js';

const SECRET = 'whsec_test-secret';
const BODY = '{"id":"evt_1","type":"balance.below"}';
const NOW_MS = 1_800_000_000_000;
const T = NOW_MS / 1000;

t.test('a signature made with the secret verifies', async (t) => {
  t.ok(verifyWebhookSignature(SECRET, signWebhook(SECRET, T, BODY), BODY, { now: NOW_MS }));
});

t.test('a signature made with another secret does not verify', async (t) => {
  t.notOk(verifyWebhookSignature(SECRET, signWebhook('whsec_forged', T, BODY), BODY, { now: NOW_MS }));
});

t.test('a changed body does not verify', async (t) => {
  t.notOk(
    verifyWebhookSignature(SECRET, signWebhook(SECRET, T, BODY), BODY.replace('evt_1', 'evt_2'), { now: NOW_MS }),
  );
});

t.test('a signature re-dated by a forger does not verify', async (t) => {
  const header = signWebhook(SECRET, T, BODY).replace(`t=${T}`, `t=${T + 60}`);
  t.notOk(verifyWebhookSignature(SECRET, header, BODY, { now: NOW_MS }));
});

t.test('a timestamp beyond the tolerance does not verify (a replay)', async (t) => {
  const header = signWebhook(SECRET, T - 301, BODY);
  t.notOk(verifyWebhookSignature(SECRET, header, BODY, { now: NOW_MS }));
  t.ok(verifyWebhookSignature(SECRET, header, BODY, { now: NOW_MS, toleranceSeconds: 600 }));
});

t.test('a missing or malformed header does not verify', async (t) => {
  for (const header of [undefined, '', 't=abc,v1=00', `t=${T}`, `t=${T},v1=zz`])
    t.notOk(verifyWebhookSignature(SECRET, header, BODY, { now: NOW_MS }), String(header));
});
