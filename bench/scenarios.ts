// What the load asks for: three kinds of generation, each the same for every target but the model name and, for the
// gateway's other dialects, the path and the body's shape.
import type { DialectName } from '../dialects/registry.js';

export type ScenarioName = 'nonstream' | 'stream-burst' | 'stream-paced';

export interface Scenario {
  name: ScenarioName;
  stream: boolean;
  /** Content chunks per streamed response (max_tokens); 0 for a non-streamed one. */
  chunks: number;
  /** Headers the sim reads (the gateway forwards them). */
  simHeaders: Record<string, string>;
  /** What the scenario stands for, for the README and the report. */
  about: string;
}

export const CHUNKS = 20;

export const SCENARIOS: readonly Scenario[] = [
  { name: 'nonstream', stream: false, chunks: 0, simHeaders: simHeaders(0), about: `stream:false, ${CHUNKS} tokens` },
  {
    name: 'stream-burst',
    stream: true,
    chunks: CHUNKS,
    simHeaders: simHeaders(0),
    about: `stream:true, ${CHUNKS} chunks, no delay`,
  },
  {
    name: 'stream-paced',
    stream: true,
    chunks: CHUNKS,
    simHeaders: simHeaders(5),
    about: `stream:true, ${CHUNKS} chunks, 5 ms apart`,
  },
];

/** The headers the gateway must pass to the sim for these scenarios to mean anything. */
export const SIM_HEADER_NAMES = ['x-sim-itl-ms', 'x-sim-ttft-ms', 'x-sim-output-tokens'];

/** Each API dialect's path; the sim and the bare pass-throughs speak only `chat`. */
export const DIALECT_PATHS: Readonly<Record<DialectName, string>> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
};

export const CHAT_PATH = DIALECT_PATHS.chat;

/** The request body in the dialect's shape, with the model name the target expects; the same prompt and token limit in each. */
export function requestBody(dialect: DialectName, scenario: Scenario, model: string, maxTokens = CHUNKS): string {
  const prompt = 'Say something.';
  switch (dialect) {
    case 'chat':
      return JSON.stringify({
        model,
        messages: [{ role: 'user', content: prompt }],
        max_tokens: maxTokens,
        stream: scenario.stream,
      });
    case 'messages':
      return JSON.stringify({
        model,
        max_tokens: maxTokens,
        messages: [{ role: 'user', content: prompt }],
        stream: scenario.stream,
      });
    case 'responses':
      return JSON.stringify({ model, input: prompt, max_output_tokens: maxTokens, stream: scenario.stream });
  }
}

/** The scenario's headers, then the target's own (`extra`: the full chain's API key). */
export function requestHeaders(
  scenario: Scenario,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: scenario.stream ? 'text/event-stream' : 'application/json',
    ...scenario.simHeaders,
    ...extra,
  };
}

export function scenarioNamed(name: ScenarioName): Scenario {
  const scenario = SCENARIOS.find((candidate) => candidate.name === name);
  if (scenario === undefined) throw new Error(`no scenario '${name}'`);
  return scenario;
}

/** The sim's answer is longer than max_tokens (its count includes the end-of-turn token), so max_tokens cuts it: CHUNKS content chunks. */
function simHeaders(itlMs: number): Record<string, string> {
  return { 'x-sim-ttft-ms': '0', 'x-sim-itl-ms': String(itlMs), 'x-sim-output-tokens': String(CHUNKS + 4) };
}
