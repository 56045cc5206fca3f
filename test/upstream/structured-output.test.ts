// Structured outputs in front of a real llama-server, whose grammar enforces a JSON schema even with the
// tiny model: each dialect's own field (chat `response_format`, messages `output_config.format` and the
// older `output_format`, responses `text.format`), streamed and not, raw over HTTP and through the real
// SDKs' parse helpers (`messages.parse()`, `chat.completions.parse()`, `responses.parse()` with zod).
import Anthropic from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import t, { type Test } from 'tap';
import { z } from 'zod';
import * as z4 from 'zod/v4';
import type { DialectName } from '../../dialects/registry.js';
import { askRaw, PATHS, requestBody } from './dialect-answers.js';
import { ledgerCheck, startLlamaStack, type LlamaStack, TIER_TIMEOUT_MS } from './llama-stack.js';
import { sseJson } from '../kit/sse-reader.js';

t.setTimeout(TIER_TIMEOUT_MS);

const DIALECTS: readonly DialectName[] = ['chat', 'messages', 'responses'];

/** Two typed fields, both required, nothing else: the answer must be exactly this shape. */
const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, sunny: { type: 'boolean' } },
  required: ['city', 'sunny'],
  additionalProperties: false,
};
const WEATHER_V3 = z.object({ city: z.string(), sunny: z.boolean() });
const WEATHER_V4 = z4.object({ city: z4.string(), sunny: z4.boolean() });

let llama: LlamaStack;
t.before(async () => {
  llama = await startLlamaStack(t);
});

/** The answer's text follows SCHEMA: JSON, both fields of their types, no other field. */
function followsSchema(t: Test, text: string, what: string): void {
  let parsed: unknown;
  t.doesNotThrow(() => (parsed = JSON.parse(text)), `${what}: JSON (${text})`);
  t.ok(typeof parsed === 'object' && parsed !== null, `${what}: an object`);
  const record = parsed as Record<string, unknown>;
  t.equal(typeof record.city, 'string', `${what}: city`);
  t.equal(typeof record.sunny, 'boolean', `${what}: sunny`);
  t.same(Object.keys(record).sort(), ['city', 'sunny'], `${what}: no other field`);
}

for (const stream of [false, true]) {
  const how = stream ? 'streamed' : 'not streamed';
  for (const dialect of DIALECTS)
    t.test(`${dialect}: the schema reaches llama-server and the answer follows it (${how})`, async (t) => {
      const answer = await askRaw(llama.url, llama.key, { dialect, stream, thinking: false, schema: SCHEMA });
      t.equal(answer.status, 200, JSON.stringify(answer.error));
      followsSchema(t, answer.text, dialect);
    });

  t.test(`messages: the older top-level output_format is enforced too (${how})`, async (t) => {
    const body = requestBody({ dialect: 'messages', stream, thinking: false, schema: SCHEMA });
    delete body.output_config;
    body.output_format = { type: 'json_schema', schema: SCHEMA };
    const response = await fetch(llama.url + PATHS.messages, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${llama.key}` },
      body: JSON.stringify(body),
    });
    t.equal(response.status, 200);
    const text = await response.text();
    const answer = stream
      ? sseJson<{ type: string; delta?: { type: string; text?: string } }>(text)
          .filter((event) => event.type === 'content_block_delta' && event.delta?.type === 'text_delta')
          .map((event) => event.delta?.text ?? '')
          .join('')
      : (JSON.parse(text) as { content: Array<{ type: string; text?: string }> }).content
          .filter((block) => block.type === 'text')
          .map((block) => block.text)
          .join('');
    followsSchema(t, answer, 'output_format');
  });
}

t.test('a json_object format gives a JSON object (chat response_format, responses text.format)', async (t) => {
  for (const stream of [false, true]) {
    const chat = requestBody({ dialect: 'chat', stream, thinking: false });
    chat.response_format = { type: 'json_object' };
    const responses = requestBody({ dialect: 'responses', stream, thinking: false });
    responses.text = { format: { type: 'json_object' } };
    for (const [dialect, body] of [
      ['chat', chat],
      ['responses', responses],
    ] as const) {
      const response = await fetch(llama.url + PATHS[dialect], {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${llama.key}` },
        body: JSON.stringify(body),
      });
      t.equal(response.status, 200, dialect);
      if (stream) continue;
      const answer = (await response.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a wire body
      const text: string =
        dialect === 'chat'
          ? answer.choices[0].message.content
          : answer.output.find((item: { type: string }) => item.type === 'message').content[0].text;
      const parsed = JSON.parse(text) as unknown;
      t.ok(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed), `${dialect}: ${text}`);
    }
  }
});

t.test('@anthropic-ai/sdk: messages.parse() with a zod output format returns the parsed output', async (t) => {
  const client = new Anthropic({ baseURL: llama.url, apiKey: llama.key, maxRetries: 0 });
  const message = await client.messages.parse({
    model: 'qwen3-8b',
    max_tokens: 200,
    thinking: { type: 'disabled' },
    messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    output_config: { format: zodOutputFormat(WEATHER_V4) },
  });
  t.equal(typeof message.parsed_output?.city, 'string');
  t.equal(typeof message.parsed_output?.sunny, 'boolean');
});

t.test('@anthropic-ai/sdk: a streamed message with a zod output format parses at its end', async (t) => {
  const client = new Anthropic({ baseURL: llama.url, apiKey: llama.key, maxRetries: 0 });
  const stream = client.messages.stream({
    model: 'qwen3-8b',
    max_tokens: 200,
    thinking: { type: 'disabled' },
    messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    output_config: { format: zodOutputFormat(WEATHER_V4) },
  });
  const message = await stream.finalMessage();
  t.equal(typeof message.parsed_output?.city, 'string');
  t.equal(typeof message.parsed_output?.sunny, 'boolean');
});

/** The openai SDK, on OpenAI's wire (its responses stream reader needs it; docs/wire.md). */
function openai(): OpenAI {
  return new OpenAI({
    baseURL: `${llama.url}/v1`,
    apiKey: llama.key,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-wire': 'openai' },
  });
}

const QUESTION = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

t.test('openai: chat.completions.parse() with zodResponseFormat returns the parsed message', async (t) => {
  const completion = await openai().chat.completions.parse({
    model: 'qwen3-8b',
    max_tokens: 200,
    reasoning_effort: 'none',
    messages: QUESTION,
    response_format: zodResponseFormat(WEATHER_V3, 'weather'),
  });
  const parsed = completion.choices[0]?.message.parsed;
  t.equal(typeof parsed?.city, 'string');
  t.equal(typeof parsed?.sunny, 'boolean');
});

t.test('openai: a chat.completions stream with zodResponseFormat parses at its end', async (t) => {
  const stream = openai().chat.completions.stream({
    model: 'qwen3-8b',
    max_tokens: 200,
    reasoning_effort: 'none',
    messages: QUESTION,
    response_format: zodResponseFormat(WEATHER_V3, 'weather'),
  });
  const parsed = (await stream.finalChatCompletion()).choices[0]?.message.parsed;
  t.equal(typeof parsed?.city, 'string');
  t.equal(typeof parsed?.sunny, 'boolean');
});

t.test('openai: responses.parse() with zodTextFormat returns output_parsed', async (t) => {
  const response = await openai().responses.parse({
    model: 'qwen3-8b',
    max_output_tokens: 200,
    reasoning: { effort: 'none' },
    input: QUESTION,
    text: { format: zodTextFormat(WEATHER_V3, 'weather') },
  });
  t.equal(typeof response.output_parsed?.city, 'string');
  t.equal(typeof response.output_parsed?.sunny, 'boolean');
});

t.test('openai: a responses stream with zodTextFormat parses at its end', async (t) => {
  const stream = openai().responses.stream({
    model: 'qwen3-8b',
    max_output_tokens: 200,
    reasoning: { effort: 'none' },
    input: QUESTION,
    text: { format: zodTextFormat(WEATHER_V3, 'weather') },
  });
  const response = await stream.finalResponse();
  t.equal(typeof response.output_parsed?.city, 'string');
  t.equal(typeof response.output_parsed?.sunny, 'boolean');
});

t.test('the ledger balances', async (t) => {
  const checked = ledgerCheck(llama.stack);
  t.equal(checked.code, 0, checked.out + checked.err);
});
