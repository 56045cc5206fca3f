// The Python openai and anthropic SDKs (clients/python/) in front of a real llama-server serving the tiny
// Qwen3 (it answers "Hello world!", and calls get_weather({"city":"Paris"}) when offered tools): the same
// scenarios and rules as over the sim (test/e2e/python-clients.test.ts), without any wire header. The
// tier's gateway has responses function tools on, so the responses round trip runs with the others.
import t from 'tap';
import { SAYS } from '../../upstream-tier/tiny-qwen3-answers.js';
import { pythonClientRules, type PythonTier } from '../helpers/python-client-rules.js';
import { pythonClients, runPythonScenarios, type ScenarioSettings } from '../helpers/python-clients.js';
import { ledgerCheck, startLlamaStack, TIER_TIMEOUT_MS } from './llama-stack.js';

t.setTimeout(TIER_TIMEOUT_MS);

let tier: PythonTier;
let llama: Awaited<ReturnType<typeof startLlamaStack>>;
t.before(async () => {
  await pythonClients(); // the first run on a machine installs the SDKs
  llama = await startLlamaStack(t);
  const settings: ScenarioSettings = {
    base_url: llama.url,
    api_key: llama.key,
    model: 'qwen3-8b',
    prompt: 'Hello?',
    tool_prompt: 'What is the weather in Paris?',
    tool_result: 'Sunny, 21 C',
  };
  // One script at a time: llama-server's slots are few, and the model is the slow part.
  const chat = await runPythonScenarios('chat_completions', settings);
  const responses = await runPythonScenarios('responses', settings);
  const messages = await runPythonScenarios('messages', settings);
  tier = {
    results: { chat_completions: chat, responses, messages },
    responsesToolRoundTrip: responses.tool_round_trip!,
    responsesToolsRefused: false,
    answer: SAYS.content,
    toolAnswer: new RegExp(`^${SAYS.content}$`),
    store: llama.store,
  };
});

pythonClientRules(() => tier);

t.test('the ledger balances after the SDKs’ requests (gateway ledger check)', async (t) => {
  const check = ledgerCheck(llama.stack);
  t.equal(check.code, 0, check.out + check.err);
});
