import { readFileSync } from 'node:fs';
import t from 'tap';
import { detokenizePieces } from '../../sim/detokenizer.js';
import {
  EOS_TOKEN_ID,
  decode,
  encode,
  renderPrompt,
  type TemplateMessage,
  type TemplateTool,
} from '../../sim/qwen3-prompt.js';

interface TemplateCase {
  messages: TemplateMessage[];
  tools?: TemplateTool[];
  agp?: boolean;
  kw?: Record<string, unknown>;
  expected: string;
}

// Rendered by Python's Jinja2 with transformers' settings (trim_blocks, lstrip_blocks, a
// json.dumps tojson): system prompt, tools with null fields, assistant tool calls, consecutive
// tool results, <think> history, enable_thinking false, a developer message.
const cases = JSON.parse(
  readFileSync(new URL('./fixtures/qwen3-template.json', import.meta.url), 'utf8'),
) as TemplateCase[];

t.test('the chat template renders exactly as Python Jinja2 renders it', async (t) => {
  for (const c of cases) {
    t.equal(renderPrompt(c.messages, c.tools ?? null, c.agp ?? true, c.kw ?? {}), c.expected);
  }
});

t.test('special-token strings in the prompt encode to their single ids', async (t) => {
  t.same(encode('<|im_start|>user\nHello world<|im_end|>'), [151644, 872, 198, 9707, 1879, EOS_TOKEN_ID]);
});

t.test('decode inverts encode, and skipSpecialTokens drops <|im_end|>', async (t) => {
  const text = 'Grüße, 你好 🎉 naïve café — ok';
  t.equal(decode(encode(text)), text);
  t.equal(decode([...encode('Hi'), EOS_TOKEN_ID], true), 'Hi');
  t.equal(decode([...encode('Hi'), EOS_TOKEN_ID]), 'Hi<|im_end|>');
});

t.test('incremental detokenization adds up to the full decode', async (t) => {
  const ids = encode('mixed 🇯🇵 日本語 text, ελληνικά 😀!');
  const pieces = detokenizePieces(ids);
  t.equal(pieces.length, ids.length);
  t.equal(pieces.join(''), decode(ids));
});
