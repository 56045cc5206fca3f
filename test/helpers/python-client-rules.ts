// The rules the Python SDKs' scenarios are held to, one tap test each, shared by the tier over the sim
// (test/e2e/python-clients.test.ts) and the tier over the real llama-server (test/upstream/python-clients.test.ts).
import t, { type Test } from 'tap';
import type { Store } from '../../store/store.js';
import { ledgerUsage, type PythonScript, type Raised, type ScenarioResult } from './python-clients.js';

export interface PythonTier {
  /** Each script's results against the gateway on its defaults (no wire header). */
  results: Record<PythonScript, Record<string, ScenarioResult>>;
  /** The responses tool round trip where function tools are on (`dialects.responses.function_tools: true`). */
  responsesToolRoundTrip: ScenarioResult;
  /** Whether the gateway of `results` refuses responses function tools (the default: spec rule 5). */
  responsesToolsRefused: boolean;
  /** The plain and streamed answer's text. */
  answer: string;
  /** The answer after the tool result. */
  toolAnswer: RegExp;
  store: Store;
  /** The store of the gateway that ran `responsesToolRoundTrip`, where that is another one. */
  toolStore?: Store;
}

const SDK: Record<PythonScript, string> = {
  chat_completions: 'Python openai, chat completions',
  responses: 'Python openai, responses',
  messages: 'Python anthropic, messages',
};

const WEATHER_CALL = { name: 'get_weather', arguments: { city: 'Paris' } };

/** Registers the rules; `tier` is called inside the tests, after the file's `before` made it. */
export function pythonClientRules(tier: () => PythonTier): void {
  const result = (script: PythonScript, scenario: string): ScenarioResult => {
    const found = tier().results[script][scenario];
    if (found === undefined) throw new Error(`${script}.py ran no scenario ${scenario}`);
    return found;
  };
  /** The exception a scenario raised, or a failure that says it raised none. */
  const raisedBy = (t: Test, script: PythonScript, scenario: string): Partial<Raised> => {
    const raised = result(script, scenario).raised;
    t.ok(raised, `${scenario} raised`);
    return raised ?? {};
  };
  const notRaised = (t: Test, found: ScenarioResult): void => {
    t.equal(
      found.raised,
      undefined,
      found.raised ? `raised ${found.raised.class}: ${found.raised.message}` : 'no exception',
    );
  };
  const sdkModule = (script: PythonScript) => (script === 'messages' ? 'anthropic' : 'openai');

  for (const script of ['chat_completions', 'responses', 'messages'] as const) {
    const name = SDK[script];

    t.test(`${name}: a plain answer carries the text and the public model id`, async (t) => {
      const plain = result(script, 'plain');
      notRaised(t, plain);
      t.equal(plain.text, tier().answer);
      t.equal(plain.model, 'qwen3-8b');
      t.match(
        plain,
        script === 'chat_completions'
          ? { finish_reason: 'stop' }
          : script === 'responses'
            ? { status: 'completed' }
            : { stop_reason: 'end_turn' },
      );
    });

    t.test(`${name}: a streamed answer carries the text and its usage`, async (t) => {
      const streamed = result(script, 'streamed');
      notRaised(t, streamed);
      t.equal(streamed.text, tier().answer);
      if (script !== 'chat_completions') t.equal(streamed.deltas, tier().answer, 'the deltas add up to the text');
      t.ok((streamed.usage?.[0]?.output ?? 0) > 0, 'output tokens reported');
    });

    t.test(`${name}: a tool round trip: get_weather(Paris) called, its result answered`, async (t) => {
      if (script === 'responses' && tier().responsesToolsRefused) {
        const refused = raisedBy(t, script, 'tool_round_trip');
        t.match(
          refused,
          { class: 'BadRequestError', status: 400, body: { param: 'tools[0].type' } },
          'on the defaults function tools are refused (spec rule 5)',
        );
        t.match(
          refused.message,
          /\/v1\/chat\/completions or \/v1\/messages/,
          'the refusal names the endpoints that take tools',
        );
      }
      const trip = script === 'responses' ? tier().responsesToolRoundTrip : result(script, 'tool_round_trip');
      notRaised(t, trip);
      t.match(trip.call, WEATHER_CALL);
      t.match(trip.call, { id: script === 'messages' ? /^toolu_/ : /^call_/ }, "the call id in the dialect's form");
      t.match(trip.text, tier().toolAnswer);
      t.same(
        trip.finish_reasons ?? trip.stop_reasons ?? trip.statuses,
        script === 'chat_completions'
          ? ['tool_calls', 'stop']
          : script === 'messages'
            ? ['tool_use', 'end_turn']
            : ['completed', 'completed'],
      );
    });

    t.test(`${name}: the usage the SDK reports equals the ledger's row of each request`, async (t) => {
      const scenarios =
        script === 'messages'
          ? ['plain', 'streamed', 'count_tokens', 'tool_round_trip']
          : ['plain', 'streamed', 'tool_round_trip'];
      for (const scenario of scenarios) {
        const toolTrip = scenario === 'tool_round_trip' && script === 'responses';
        const found = toolTrip ? tier().responsesToolRoundTrip : result(script, scenario);
        const store = toolTrip ? (tier().toolStore ?? tier().store) : tier().store;
        // count_tokens makes a request that is not metered before the one it compares.
        const metered = found.request_ids.slice(-(found.usage?.length ?? 0));
        t.ok(found.usage && found.usage.length > 0, `${scenario} reports usage`);
        t.same(await ledgerUsage(store, { ...found, request_ids: metered }), found.usage, scenario);
      }
    });

    t.test(`regression: ${name}: models.retrieve() was a 404; it returns the model`, async (t) => {
      const model = result(script, 'models_retrieve');
      notRaised(t, model);
      t.match(model, {
        id: 'qwen3-8b',
        ...(script === 'messages' ? { type: 'model', display_name: String } : { object: 'model' }),
      });
    });

    t.test(`${name}: a bad key is the SDK's AuthenticationError`, async (t) => {
      t.match(raisedBy(t, script, 'bad_key'), { class: 'AuthenticationError', module: sdkModule(script), status: 401 });
    });

    t.test(`${name}: an unknown model is the SDK's NotFoundError`, async (t) => {
      t.match(raisedBy(t, script, 'unknown_model'), { class: 'NotFoundError', module: sdkModule(script), status: 404 });
    });

    t.test(`${name}: a bad field is a BadRequestError whose message names the field`, async (t) => {
      const field = script === 'messages' ? 'max_tokens' : 'temperature';
      const raised = raisedBy(t, script, 'bad_field');
      t.match(raised, { class: 'BadRequestError', module: sdkModule(script), status: 400 });
      t.match(raised.message, field);
    });

    t.test(
      `regression: ${name}: an unknown model with an out-of-range output limit is a NotFoundError, not a BadRequestError (the model checked first)`,
      async (t) => {
        t.match(raisedBy(t, script, 'unknown_model_with_bad_field'), { class: 'NotFoundError', status: 404 });
      },
    );
  }

  t.test('regression: Python openai responses.stream() raised TypeError on the spec wire', async (t) => {
    const streamed = result('responses', 'streamed');
    notRaised(t, streamed);
    t.same(streamed.delta_types, ['str'], 'every delta a string: the openai wire, negotiated from the SDK');
    t.equal(streamed.text, tier().answer);
  });

  t.test('Python openai, responses: create(stream=True) yields the events in order', async (t) => {
    const events = result('responses', 'streamed_events');
    notRaised(t, events);
    const types = events.types as string[];
    t.same(types.slice(0, 1), ['response.created']);
    t.same(types.slice(-1), ['response.completed']);
    t.equal(events.text, tier().answer);
  });

  t.test('Python anthropic, messages: count_tokens equals the input tokens of the same request', async (t) => {
    const counted = result('messages', 'count_tokens');
    notRaised(t, counted);
    t.equal(counted.counted, counted.usage?.[0]?.input);
  });
}
