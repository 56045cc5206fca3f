// The targeted scan of a text chunk (proxy/upstream/chunk-scan.ts): whatever it reads is exactly what
// JSON.parse reads, key order included; every other shape is left to JSON.parse.
import t from 'tap';
import { scanTextChunk } from '../../../../proxy/upstream/chunk-scan.js';

const HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1795925116,"model":"Qwen/Qwen3-8B",';
const USAGE = '"usage":{"prompt_tokens":9,"total_tokens":11,"completion_tokens":2}';

function textChunk(field: string, text: string, usage = false): string {
  const choice = `{"index":0,"delta":{"${field}":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}`;
  return `${HEAD}"choices":[${choice}]${usage ? `,${USAGE}` : ''}}`;
}

/** The scan's reading, in the form that shows key order too. */
function scanned(data: string): string | undefined {
  const chunk = scanTextChunk(data);
  return chunk === undefined ? undefined : JSON.stringify(chunk);
}

t.test(
  'a text, reasoning or reasoning_content delta reads as JSON.parse reads it, with and without usage',
  async (t) => {
    for (const field of ['content', 'reasoning_content', 'reasoning'])
      for (const usage of [false, true]) {
        const data = textChunk(field, ' never', usage);
        t.equal(scanned(data), JSON.stringify(JSON.parse(data)), `${field}, usage ${usage}`);
      }
  },
);

t.test('escapes, quotes, unicode and line separators in the text read as JSON.parse reads them', async (t) => {
  const texts = [
    '',
    'say "hi"',
    'back\\slash',
    'line\nbreak\ttab',
    '\u0000\u001f',
    'é 漢字 😀',
    '\u2028\u2029',
    '\ud800',
  ];
  for (const [index, text] of texts.entries()) {
    const data = textChunk('content', text, true);
    t.equal(scanned(data), JSON.stringify(JSON.parse(data)), `text ${index}`);
  }
  const escaped = `${HEAD}"choices":[{"index":0,"delta":{"content":"\\u00e9\\/\\ud83d\\ude00"},"logprobs":null,"finish_reason":null}]}`;
  t.equal(scanned(escaped), JSON.stringify(JSON.parse(escaped)), 'escapes a server may choose (\\u, \\/)');
});

t.test('any random text reads as JSON.parse reads it (2,000 seeded strings)', async (t) => {
  const alphabet = ['a', ' ', '"', '\\', '\n', '\u0001', 'é', '😀', '\u2028', '/', '{', '}', ',', ':', '\ud83d'];
  let seed = 12345;
  const next = (bound: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % bound;
  };
  let differing = 0;
  for (let round = 0; round < 2000; round++) {
    let text = '';
    for (let length = next(24); length > 0; length--) text += alphabet[next(alphabet.length)];
    const data = textChunk('content', text, round % 2 === 0);
    if (scanned(data) !== JSON.stringify(JSON.parse(data))) differing++;
  }
  t.equal(differing, 0);
});

t.test('every other shape is left to JSON.parse', async (t) => {
  const others = {
    'the role chunk': `${HEAD}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
    'a finish reason': `${HEAD}"choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}`,
    'a tool call': `${HEAD}"choices":[{"index":0,"delta":{"tool_calls":[]},"logprobs":null,"finish_reason":null}]}`,
    'the usage chunk': `${HEAD}"choices":[],${USAGE}}`,
    "llama-server's order": `{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"x"}}],"created":1,"id":"c","model":"m","object":"chat.completion.chunk"}`,
    whitespace: textChunk('content', 'x').replace('"created":', '"created": '),
    'a leading zero': textChunk('content', 'x').replace('1795925116', '0123'),
    'a negative index': textChunk('content', 'x').replace('"index":0', '"index":-1'),
    'a raw control character': textChunk('content', 'x').replace('"x"', '"a\nb"'),
    'a field more': textChunk('content', 'x').replace('"finish_reason":null}', '"finish_reason":null,"extra":1}'),
    'more usage': `${textChunk('content', 'x').slice(0, -1)},"usage":{"prompt_tokens":1,"total_tokens":2,"completion_tokens":1,"x":0}}`,
    'trailing bytes': `${textChunk('content', 'x')} `,
  };
  for (const [name, data] of Object.entries(others)) t.equal(scanTextChunk(data), undefined, name);
});

t.test('a bad escape in a matching chunk throws, as JSON.parse does', async (t) => {
  const data = textChunk('content', 'x').replace('"x"', '"\\q"');
  t.throws(() => JSON.parse(data), SyntaxError);
  t.throws(() => scanTextChunk(data), SyntaxError);
});
