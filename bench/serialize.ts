// Micro-benchmark behind the chat encoder's choice: JSON.stringify vs fast-json-stringify for the
// per-chunk delta, and the whole chunk serialized at once. `npm run bench:serialize`.
import fastJson from 'fast-json-stringify';
import deltaSchema from '../schemas/chat-delta.json' with { type: 'json' };

const stringifyDelta = fastJson(deltaSchema);
const delta = { content: ' world' };
const chunk = {
  id: 'chatcmpl-0123456789abcdef01234567',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'qwen3-8b',
  choices: [{ index: 0, delta }],
};
const head = `"id":"${chunk.id}","object":"chat.completion.chunk","created":${chunk.created},"model":"${chunk.model}"`;

function nsPerCall(run: () => string): number {
  let sink = 0;
  for (let i = 0; i < 200_000; i++) sink += run().length;
  const calls = 2_000_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink += run().length;
  const ns = Number(process.hrtime.bigint() - started) / calls;
  if (sink === 0) throw new Error('unreachable: keeps the calls from being optimised away');
  return ns;
}

const cases: Array<[string, () => string]> = [
  ['whole chunk, JSON.stringify', () => JSON.stringify(chunk)],
  ['cached head + JSON.stringify(delta)', () => `{${head},"choices":[{"index":0,"delta":${JSON.stringify(delta)}}]}`],
  [
    'cached head + fast-json-stringify(delta) (the encoder)',
    () => `{${head},"choices":[{"index":0,"delta":${stringifyDelta(delta)}}]}`,
  ],
];
for (const [name, run] of cases) console.log(`${nsPerCall(run).toFixed(0).padStart(6)} ns  ${name}`);
