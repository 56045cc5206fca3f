import t from 'tap';
import { complete, simFor } from './sim-client.js';

t.test('echo: answers the rest of the last user message verbatim', async (t) => {
  const sim = await simFor(t);
  const text = 'Ünïcödé, 中文, العربية and emoji 🎉 — "quoted"\nsecond line';
  const body = await complete(sim, {
    messages: [
      { role: 'user', content: 'echo: not this one' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: [{ type: 'text', text: `echo: ${text}` }] },
    ],
  });
  t.equal(body.choices[0]?.message.content, text);
  t.equal(body.choices[0]?.finish_reason, 'stop');
});

t.test("echo: reads the user's words past Claude Code's system reminders", async (t) => {
  const sim = await simFor(t);
  const reminder = (text: string) => ({ type: 'text', text: `<system-reminder>\n${text}\n</system-reminder>\n` });
  const body = await complete(sim, {
    messages: [
      {
        role: 'user',
        content: [
          reminder('Attribution for git commits'),
          { type: 'text', text: 'echo: hello there' },
          reminder('later'),
        ],
      },
    ],
  });
  t.equal(body.choices[0]?.message.content, 'hello there');
});

t.test('otherwise the answer is outputTokens tokens of ordinary words, deterministic per prompt', async (t) => {
  const sim = await simFor(t);
  const ask = (content: string) => complete(sim, { messages: [{ role: 'user', content }] });
  const a = await ask('Tell me something.');
  const again = await ask('Tell me something.');
  const other = await ask('Tell me something else.');
  const text = a.choices[0]?.message.content ?? '';
  t.equal(again.choices[0]?.message.content, text, 'same prompt, same answer');
  t.not(other.choices[0]?.message.content, text, 'another prompt, another answer');
  t.match(text, /^[A-Z][a-z]+( [a-z]+)+\.$/, 'a sentence of words');
  t.equal(a.usage.completion_tokens, 24, 'default 24 tokens (the end-of-turn token included)');
});

t.test('x-sim-output-tokens and the outputTokens option set the answer length', async (t) => {
  const sim = await simFor(t, { outputTokens: 5 });
  const short = await complete(sim, { messages: [{ role: 'user', content: 'Hi' }] });
  t.equal(short.usage.completion_tokens, 5);
  const long = await complete(sim, { messages: [{ role: 'user', content: 'Hi' }] }, { 'x-sim-output-tokens': '300' });
  t.equal(long.usage.completion_tokens, 300);
  t.equal(long.choices[0]?.finish_reason, 'stop');
  const empty = await complete(sim, { messages: [{ role: 'user', content: 'Hi' }] }, { 'x-sim-output-tokens': '1' });
  t.equal(empty.choices[0]?.message.content, '', 'one token is the end-of-turn token alone');
});
