// Signed thinking: the signer (core/thinking-signer.ts) and the core's check of replayed blocks (proxy/exchange/thinking-replay.ts).
import t from 'tap';
import type { ChatRequest } from '../../../core/canonical.js';
import { GatewayError } from '../../../core/errors.js';
import { checkThinkingReplay } from '../../../proxy/exchange/thinking-replay.js';
import { ThinkingSigner } from '../../../core/thinking-signer.js';

const signer = new ThinkingSigner(Buffer.alloc(32, 1));

t.test('a signature verifies for exactly the text it was made for', async (t) => {
  const signature = signer.sign('\nLet me think.\n');
  t.ok(signer.verifies('\nLet me think.\n', signature));
  t.notOk(signer.verifies('\nLet me think!\n', signature), 'changed text');
  t.notOk(signer.verifies('\nLet me think.\n', signature.slice(0, -2) + 'AA'), 'changed signature');
  t.notOk(signer.verifies('\nLet me think.\n', ''), 'empty signature');
  t.notOk(signer.verifies('\nLet me think.\n', `${signature}.x`), 'extra part');
});

t.test('a signature from another secret does not verify', async (t) => {
  const other = new ThinkingSigner(Buffer.alloc(32, 2));
  t.notOk(signer.verifies('text', other.sign('text')));
});

t.test('the same text signed twice gives the same signature (a replay is compared, not decrypted)', async (t) => {
  t.equal(signer.sign('text'), signer.sign('text'));
});

const replayed = (signature: string): ChatRequest => ({
  model: 'm',
  messages: [{ role: 'assistant', content: 'a', reasoning_content: 'hmm' }],
  gateway: { thinking_replay: [{ param: 'messages[1].content[0]', thinking: 'hmm', signature }] },
});

t.test('replayed thinking that verifies passes, and the gateway-side list is removed', async (t) => {
  const request = replayed(signer.sign('hmm'));
  checkThinkingReplay(request, signer);
  t.equal(request.gateway?.thinking_replay, undefined);
  t.same(request.messages[0], { role: 'assistant', content: 'a', reasoning_content: 'hmm' });
});

t.test('replayed thinking that does not verify is a 400 naming the block signature', async (t) => {
  try {
    checkThinkingReplay(replayed(signer.sign('hmm!')), signer);
    t.fail('accepted');
  } catch (error) {
    t.ok(error instanceof GatewayError);
    const gatewayError = error as GatewayError;
    t.equal(gatewayError.status, 400);
    t.equal(gatewayError.param, 'messages[1].content[0].signature');
    t.match(gatewayError.message, /exactly as they were received/);
  }
});
