// Wire negotiation (docs/wire.md, "Which profile a request gets"): each client's real headers, as its SDK
// sends them (the Node SDKs' captured from the installed packages through a fetch that records them; the
// others' from their sources, the CLIs' recorded from the pinned binaries), and the profile they get.
import type { IncomingHttpHeaders } from 'node:http';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import AnthropicV0 from 'anthropic-v0';
import { generateText } from 'ai';
import OpenAI from 'openai';
import OpenAIV4 from 'openai-v4';
import t from 'tap';
import { GatewayError } from '../../../../core/errors.js';
import { wireOf } from '../../../../proxy/routing/wire-header.js';
import { negotiatedWire, recognizedClient } from '../../../../proxy/routing/wire-negotiation.js';

/** A fetch that records the request's headers, as a server sees them, and fails the call. */
type Fetch = typeof globalThis.fetch;
/** openai 4 types its fetch with node-fetch's request types; the call is the same. */
type OpenAIV4Fetch = NonNullable<NonNullable<ConstructorParameters<typeof OpenAIV4>[0]>['fetch']>;

function recordingFetch(): { fetch: Fetch; headers: () => IncomingHttpHeaders } {
  let seen: IncomingHttpHeaders | undefined;
  return {
    fetch: (_input, init) => {
      seen = Object.fromEntries(new Headers(init?.headers).entries());
      return Promise.reject(new Error('recorded'));
    },
    headers: () => {
      if (seen === undefined) throw new Error('no request was sent');
      return seen;
    },
  };
}

async function sentBy(call: (fetch: Fetch) => Promise<unknown>): Promise<IncomingHttpHeaders> {
  const recorder = recordingFetch();
  await call(recorder.fetch).catch(() => undefined);
  return recorder.headers();
}

const clientOf = (headers: IncomingHttpHeaders) => recognizedClient(headers)?.client;

const OPENAI_NODE = (fetch: Fetch) =>
  new OpenAI({ apiKey: 'k', baseURL: 'http://gw/v1', maxRetries: 0, fetch }).responses.create({
    model: 'm',
    input: 'hi',
  });

t.test('a client that names nothing (a bare request, curl) gets spec', async (t) => {
  t.equal(negotiatedWire({}, 'auto'), 'spec');
  t.equal(negotiatedWire({ 'user-agent': 'curl/8.5.0', accept: '*/*' }, 'auto'), 'spec');
  t.equal(negotiatedWire({ 'user-agent': 'node' }, 'auto'), 'spec', "Node's fetch");
  t.equal(clientOf({ 'user-agent': 'curl/8.5.0' }), undefined);
});

t.test('the openai Node SDK (OpenAI/JS and x-stainless-*) gets openai, 7.x and 4.x', async (t) => {
  const seven = await sentBy(OPENAI_NODE);
  t.match(seven, { 'user-agent': /^OpenAI\/JS 7\./, 'x-stainless-lang': 'js', 'x-stainless-package-version': /^7\./ });
  t.equal(clientOf(seven), 'openai SDKs (Node, Python, …)');
  t.equal(negotiatedWire(seven, 'auto'), 'openai');
  const four = await sentBy((fetch) =>
    new OpenAIV4({
      apiKey: 'k',
      baseURL: 'http://gw/v1',
      maxRetries: 0,
      fetch: fetch as unknown as OpenAIV4Fetch,
    }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    }),
  );
  t.match(four, { 'user-agent': /^OpenAI\/JS 4\./ });
  t.equal(negotiatedWire(four, 'auto'), 'openai');
});

t.test('the openai Python SDK (OpenAI/Python, x-stainless-lang python) gets openai', async (t) => {
  const python = {
    'user-agent': 'OpenAI/Python 1.109.1',
    'x-stainless-lang': 'python',
    'x-stainless-package-version': '1.109.1',
    'x-stainless-os': 'Linux',
    'x-stainless-arch': 'x64',
    'x-stainless-runtime': 'CPython',
    'x-stainless-runtime-version': '3.12.3',
    'x-stainless-async': 'false',
  };
  t.equal(clientOf(python), 'openai SDKs (Node, Python, …)');
  t.equal(negotiatedWire(python, 'auto'), 'openai');
  t.equal(negotiatedWire({ ...python, 'user-agent': 'AsyncOpenAI/Python 1.109.1' }, 'auto'), 'openai');
});

t.test(
  'another Stainless SDK, or the openai SDK with its user agent replaced, gets openai by x-stainless-lang',
  async (t) => {
    const renamed = { 'user-agent': 'my-app/1.0', 'x-stainless-lang': 'js', 'x-stainless-package-version': '6.49.0' };
    t.equal(clientOf(renamed), 'Stainless-generated SDKs');
    t.equal(negotiatedWire(renamed, 'auto'), 'openai');
  },
);

t.test('the Anthropic SDKs, Stainless too, keep spec (anthropic-version), 1.x and 0.x', async (t) => {
  const body = { model: 'm', max_tokens: 10, messages: [{ role: 'user' as const, content: 'hi' }] };
  const calls = {
    '1.x': (fetch: Fetch) =>
      new Anthropic({ apiKey: 'k', baseURL: 'http://gw', maxRetries: 0, fetch }).messages.create(body),
    '0.x': (fetch: Fetch) =>
      new AnthropicV0({ apiKey: 'k', baseURL: 'http://gw', maxRetries: 0, fetch }).messages.create(body),
  };
  for (const [name, call] of Object.entries(calls)) {
    const headers = await sentBy(call);
    t.match(headers, { 'user-agent': /^Anthropic\/JS /, 'x-stainless-lang': 'js', 'anthropic-version': /./ }, name);
    t.equal(clientOf(headers), 'Anthropic SDKs, Claude Code, the AI SDK anthropic provider', name);
    t.equal(negotiatedWire(headers, 'auto'), 'spec', name);
  }
  t.equal(negotiatedWire({ 'user-agent': 'Anthropic/Python 0.69.0', 'x-stainless-lang': 'python' }, 'auto'), 'spec');
});

t.test('Claude Code (claude-cli, x-stainless-*, anthropic-version) keeps spec', async (t) => {
  // Recorded from the pinned 2.1.330 against a listener.
  const claudeCode = {
    'user-agent': 'claude-cli/2.1.330 (external, sdk-cli)',
    'x-stainless-lang': 'js',
    'x-stainless-os': 'Linux',
    'x-stainless-package-version': '0.128.0',
    'x-stainless-runtime': 'node',
    'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
    'anthropic-version': '2023-06-01',
    'x-app': 'cli',
  };
  t.equal(clientOf(claudeCode), 'Anthropic SDKs, Claude Code, the AI SDK anthropic provider');
  t.equal(negotiatedWire(claudeCode, 'auto'), 'spec');
});

t.test(
  'the AI SDK openai provider (ai/… ai-sdk-provider-utils/… in user-agent) gets openai, chat and responses',
  async (t) => {
    for (const api of ['chat', 'responses'] as const) {
      const headers = await sentBy((fetch) =>
        generateText({
          model: createOpenAI({ apiKey: 'k', baseURL: 'http://gw/v1', fetch })[api]('m'),
          prompt: 'hi',
          maxRetries: 0,
        }),
      );
      t.match(headers, { 'user-agent': /^ai\/7\.\S+ ai-sdk-provider-utils\// }, api);
      t.equal(clientOf(headers), 'AI SDK', api);
      t.equal(negotiatedWire(headers, 'auto'), 'openai', api);
    }
  },
);

t.test(
  "regression: the AI SDK 7's user agent (ai/7… ai-sdk-provider-utils/…) got spec, and empty answers",
  async (t) => {
    const seven = { 'user-agent': 'ai/7.0.173 ai-sdk-provider-utils/5.0.81 node.js/v20.20.2' };
    t.equal(clientOf(seven), 'AI SDK');
    t.equal(negotiatedWire(seven, 'auto'), 'openai');
    const six = { 'user-agent': 'ai/6.0.326 ai-sdk/provider-utils/4.0.65 runtime/node.js/20' };
    t.equal(negotiatedWire(six, 'auto'), 'openai', 'AI SDK 6 still');
  },
);

t.test('the AI SDK anthropic provider keeps spec (anthropic-version)', async (t) => {
  const headers = await sentBy((fetch) =>
    generateText({
      model: createAnthropic({ apiKey: 'k', baseURL: 'http://gw/v1', fetch })('m'),
      prompt: 'hi',
      maxRetries: 0,
    }),
  );
  t.match(headers, { 'user-agent': /ai-sdk-provider-utils\//, 'anthropic-version': /./ });
  t.equal(negotiatedWire(headers, 'auto'), 'spec');
});

t.test('the OpenAI Agents SDK (Agents/JavaScript over the openai SDK) gets openai', async (t) => {
  // @openai/agents-openai sends its HEADERS (`User-Agent: Agents/JavaScript <version>`) on every request.
  const headers = await sentBy((fetch) =>
    new OpenAI({ apiKey: 'k', baseURL: 'http://gw/v1', maxRetries: 0, fetch }).responses.create(
      { model: 'm', input: 'hi' },
      { headers: { 'User-Agent': 'Agents/JavaScript 0.3.9' } },
    ),
  );
  t.match(headers, { 'user-agent': 'Agents/JavaScript 0.3.9', 'x-stainless-lang': 'js' });
  t.equal(negotiatedWire(headers, 'auto'), 'openai');
  t.equal(clientOf({ 'user-agent': 'Agents/Python 0.4.0' }), 'OpenAI Agents SDK');
});

t.test('LangChain (langchainjs-openai user agent; Python through the openai SDK) gets openai', async (t) => {
  const js = { 'user-agent': 'langchainjs-openai/1.0.0 (node/v20.18.0; linux; x64)' };
  t.equal(clientOf(js), 'LangChain');
  t.equal(negotiatedWire({ ...js, 'x-stainless-lang': 'js' }, 'auto'), 'openai');
  t.equal(negotiatedWire({ 'user-agent': 'OpenAI/Python 1.109.1', 'x-stainless-lang': 'python' }, 'auto'), 'openai');
});

t.test('pydantic-ai (pydantic-ai/ user agent on its HTTP client) gets openai', async (t) => {
  const headers = { 'user-agent': 'pydantic-ai/1.0.10' };
  t.equal(clientOf(headers), 'pydantic-ai');
  t.equal(negotiatedWire(headers, 'auto'), 'openai');
});

t.test(
  'Codex (originator and user-agent codex_exec or codex_cli_rs) gets openai, on a POST and an upgrade',
  async (t) => {
    // Recorded from the pinned 0.169 (`codex exec`): the POST and the WebSocket upgrade carry the same two.
    const exec = {
      originator: 'codex_exec',
      'user-agent': 'codex_exec/0.169.0 (Debian 12.0.0; x86_64) unknown (codex_exec; 0.169.0)',
      'x-codex-beta-features': 'remote_compaction_v2',
    };
    t.equal(clientOf(exec), 'Codex');
    t.equal(negotiatedWire(exec, 'auto'), 'openai');
    t.equal(
      negotiatedWire({ ...exec, 'openai-beta': 'responses_websockets=2026-02-06', upgrade: 'websocket' }, 'auto'),
      'openai',
    );
    t.equal(
      negotiatedWire({ 'user-agent': 'codex_cli_rs/0.171.0 (Mac OS 15.5.0; arm64) iTerm.app/3.5.14' }, 'auto'),
      'openai',
    );
  },
);

t.test('OpenCode (opencode/ user agent, through the AI SDK) gets openai', async (t) => {
  const headers = { 'user-agent': 'opencode/1.18.0' };
  t.equal(clientOf(headers), 'OpenCode');
  t.equal(negotiatedWire(headers, 'auto'), 'openai');
  t.equal(
    negotiatedWire({ 'user-agent': 'opencode/1.18.0 ai-sdk/provider-utils/4.0.66 runtime/bun/1.3.0' }, 'auto'),
    'openai',
  );
});

t.test('the config forces a profile on every client: wire spec or openai', async (t) => {
  const sdk = await sentBy(OPENAI_NODE);
  t.equal(negotiatedWire(sdk, 'spec'), 'spec');
  t.equal(negotiatedWire({ 'user-agent': 'curl/8.5.0' }, 'openai'), 'openai');
});

t.test(
  'precedence: the x-gateway-wire header, then the config when it forces, then negotiation, then spec',
  async (t) => {
    const sdk = await sentBy(OPENAI_NODE);
    t.equal(wireOf({ ...sdk, 'x-gateway-wire': 'spec' }, 'auto'), 'spec', 'the header over negotiation');
    t.equal(wireOf({ ...sdk, 'x-gateway-wire': 'spec' }, 'openai'), 'spec', 'the header over the config');
    t.equal(wireOf({ 'x-gateway-wire': 'openai' }, 'spec'), 'openai', 'the header over the config');
    t.equal(wireOf(sdk, 'spec'), 'spec', 'the config over negotiation');
    t.equal(wireOf(sdk, 'auto'), 'openai', 'negotiation');
    t.equal(wireOf({}, 'auto'), 'spec', 'spec when nothing says otherwise');
  },
);

t.test('an invalid x-gateway-wire header is a 400 naming the header, whatever the client', async (t) => {
  const sdk = await sentBy(OPENAI_NODE);
  const refusal = (value: string): unknown => {
    try {
      return wireOf({ ...sdk, 'x-gateway-wire': value }, 'auto');
    } catch (error) {
      return error;
    }
  };
  for (const value of ['fancy', 'auto']) {
    const error = refusal(value);
    t.ok(error instanceof GatewayError, value);
    t.match(error, { status: 400, param: 'x-gateway-wire' }, `${value} ('auto' is a config value only)`);
  }
});
