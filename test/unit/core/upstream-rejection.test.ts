// A model server's refusal in the gateway's own words: the reason is recognised from each server's
// wording, the wording itself is never returned.
import t from 'tap';
import { rejectionMessage } from '../../../core/upstream-rejection.js';

const reason = (text: string, status = 400): string => rejectionMessage(status, text);

t.test('context length, in the words of vLLM, llama-server, SGLang, TGI and Ollama', async (t) => {
  for (const text of [
    "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    "'max_tokens' or 'max_completion_tokens' is too large: 40000. This model's maximum context length is 32768 tokens and your request has 12 input tokens (40000 > 32768 - 12).",
    'the request exceeds the available context size, try increasing it',
    'Input prompt is too big compared to KV size. Please try increasing KV size.',
    "The input (40000 tokens) is longer than the model's context length (32768 tokens).",
    'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 500 `max_new_tokens`',
    'prompt too long; exceeded max context length by 12 tokens',
  ]) {
    t.equal(reason(text), 'The model server rejected the request: context length exceeded.', text.slice(0, 40));
  }
});

t.test('max_tokens, tools, response_format and sampling parameters', async (t) => {
  t.equal(
    reason('max_tokens must be at least 1, got 0.'),
    'The model server rejected the request: max_tokens out of range.',
  );
  t.equal(
    reason('`max_new_tokens` must be strictly positive'),
    'The model server rejected the request: max_tokens out of range.',
  );
  t.equal(
    reason('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),
    'The model server rejected the request: tools or tool_choice not accepted.',
  );
  t.equal(
    reason('Unsupported param (--jinja mode required for tool call): tools'),
    'The model server rejected the request: tools or tool_choice not accepted.',
  );
  t.equal(
    reason('Either "json_schema" or "grammar" can be specified, but not both'),
    'The model server rejected the request: response_format not accepted.',
  );
  t.equal(
    reason('temperature must be non-negative, got -1.0.'),
    'The model server rejected the request: a sampling parameter out of range.',
  );
});

t.test('an unrecognised refusal gets no reason; a 413 says too large', async (t) => {
  t.equal(
    reason('Traceback (most recent call last): File "/srv/x.py" at http://10.0.0.1'),
    'The model server rejected the request.',
  );
  t.equal(reason('', 413), 'The model server rejected the request: request too large.');
});
