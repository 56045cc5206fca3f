// The Python openai and anthropic SDKs (clients/python/, pinned in requirements.txt) against `gateway start`
// on its defaults, as a new user runs it: the built-in sim upstream, the default plugin chain, the demo key
// printed on the first start, no config and no x-gateway-wire header. Responses function tools are off by
// default (spec rule 5): their round trip runs against a second gateway with only that setting on.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openStore, type Store } from '../../store/store.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { pythonClientRules, type PythonTier } from '../helpers/python-client-rules.js';
import { pythonClients, runPythonScenarios, type ScenarioSettings } from '../helpers/python-clients.js';

/** `gateway start` on an empty store: its demo key is printed once. */
async function firstStart(dataDir: string, ...args: string[]): Promise<{ gateway: GatewayProcess; key: string }> {
  const gateway = await startGatewayProcess({ GATEWAY_DATA_DIR: dataDir, GATEWAY_LOG_LEVEL: 'warn' }, ...args);
  t.teardown(() => gateway.stop());
  const key = /^\s+(sk-svc-[A-Za-z0-9_-]{43})$/m.exec(gateway.stderr)?.[1];
  if (key === undefined) throw new Error(`no demo key printed: ${gateway.stderr}`);
  return { gateway, key };
}

const PROMPTS = {
  model: 'qwen3-8b',
  prompt: 'echo: Hello there',
  tool_prompt: 'Use get_weather city=Paris',
  tool_result: 'Sunny, 21 C',
};

// The first run on a machine without PYTHON_CLIENTS (set by .ci/run) installs the SDKs, about 30 s, and a
// busy machine's two Python runs in parallel take their time: more than tap's default two minutes.
t.setTimeout(10 * 60_000);

let tier: PythonTier;
t.before(async () => {
  await pythonClients(); // the first run on a machine installs the SDKs
  const folder = mkdtempSync(join(tmpdir(), 'python-clients-'));
  const dataDir = join(folder, 'data');
  const { gateway, key } = await firstStart(dataDir);
  const withTools = join(folder, 'function-tools.yaml');
  writeFileSync(withTools, 'dialects:\n  responses:\n    function_tools: true\n');
  const tools = await firstStart(join(folder, 'data-tools'), '--config', withTools);

  const settings: ScenarioSettings = { base_url: gateway.url, api_key: key, ...PROMPTS };
  const [chat, responses, messages, toolTrip] = await Promise.all([
    runPythonScenarios('chat_completions', settings),
    runPythonScenarios('responses', settings),
    runPythonScenarios('messages', settings),
    runPythonScenarios('responses', {
      ...settings,
      base_url: tools.gateway.url,
      api_key: tools.key,
      only: ['tool_round_trip'],
    }),
  ]);
  const store: Store = await openStore({ dataDir });
  const toolStore: Store = await openStore({ dataDir: join(folder, 'data-tools') });
  t.teardown(async () => {
    await store.close();
    await toolStore.close();
  });
  tier = {
    results: { chat_completions: chat, responses, messages },
    responsesToolRoundTrip: toolTrip.tool_round_trip!,
    responsesToolsRefused: true,
    answer: 'Hello there',
    toolAnswer: /Sunny, 21 C/,
    store,
    toolStore,
  };
});

pythonClientRules(() => tier);
