// vLLM's `cache_salt` on the sim: a prefix is reused only by requests with the same salt (vLLM hashes
// it into the first block's keys), none with none; llama-server ignores the field.
import t from 'tap';
import { complete, postJson, simFor, MODEL } from './sim-client.js';

const system = { role: 'system', content: 'You are a careful assistant. '.repeat(20) };
const messages = [system, { role: 'user', content: 'First question?' }];
const fullBlocks = (prompt: number): number => Math.floor((prompt - 1) / 16) * 16;

t.test('the same salt reuses the prefix; another salt, or none, does not', async (t) => {
  const sim = await simFor(t);
  const first = await complete(sim, { messages, cache_salt: 'salt-a' });
  t.equal(first.usage.prompt_tokens_details.cached_tokens, 0);
  const again = await complete(sim, { messages, cache_salt: 'salt-a' });
  t.equal(again.usage.prompt_tokens_details.cached_tokens, fullBlocks(again.usage.prompt_tokens));
  const other = await complete(sim, { messages, cache_salt: 'salt-b' });
  t.equal(other.usage.prompt_tokens_details.cached_tokens, 0, 'another salt: nothing reused');
  const unsalted = await complete(sim, { messages });
  t.equal(unsalted.usage.prompt_tokens_details.cached_tokens, 0, 'no salt: not the salted blocks');
  const unsaltedAgain = await complete(sim, { messages });
  t.equal(unsaltedAgain.usage.prompt_tokens_details.cached_tokens, fullBlocks(unsaltedAgain.usage.prompt_tokens));
});

t.test("an empty or non-string cache_salt is vLLM's 400", async (t) => {
  const sim = await simFor(t);
  for (const cache_salt of ['', 5, ['a']]) {
    const answer = await postJson<{ error: { message: string } }>(sim, '/v1/chat/completions', {
      model: MODEL,
      messages,
      cache_salt,
    });
    t.equal(answer.status, 400, JSON.stringify(cache_salt));
    t.match(answer.body.error.message, "Parameter 'cache_salt' must be a non-empty string if provided.");
  }
});

t.test('llama-server ignores cache_salt: its slots serve every caller alike', async (t) => {
  const sim = await simFor(t, { flavor: 'llama-server' });
  await complete(sim, { messages, cache_salt: 'salt-a' });
  const other = await complete(sim, { messages, cache_salt: 'salt-b' });
  t.ok(other.usage.prompt_tokens_details.cached_tokens > 0);
});
