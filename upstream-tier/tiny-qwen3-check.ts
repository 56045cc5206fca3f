// The tiny model's answers, checked with the forward pass before the model is written: each
// conversation's prompt is rendered by Qwen3's chat template and tokenized by Qwen3's tokenizer,
// then every expected token must win, greedily, by more than MIN_MARGIN logits. A margin that wide
// also holds under default sampling (temperature 0.8 leaves the runner-up e^-25 of the winner).
import type { LocalModel } from '../prompt/local-model.js';
import type { TemplateMessage, TemplateTool } from '../prompt/template-input.js';
import { ANSWER, CONTINUATION, THINKING, TOOL_CALL } from './tiny-qwen3-answers.js';
import { Qwen3Forward } from './qwen3-forward.js';
import type { Qwen3HyperParameters, Qwen3Weights } from './qwen3-model.js';
import type { TokenIdOf } from './tiny-qwen3-weights.js';

export const MIN_MARGIN = 20;

export const WEATHER_TOOL: TemplateTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const question: TemplateMessage = { role: 'user', content: 'What is the weather in Paris?' };
const afterToolResult: TemplateMessage[] = [
  question,
  {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
  },
  { role: 'tool', content: '{"temperature": 21}', tool_call_id: 'call_1' },
];
const thinkingOff = { enable_thinking: false };

export interface Conversation {
  name: string;
  messages: TemplateMessage[];
  tools?: TemplateTool[];
  templateKwargs?: Record<string, unknown>;
  /** Text after the rendered prompt (an assistant prefill), or the prompt itself when there are no messages. */
  suffix?: string;
  /** `--ignore-eos`: `<|im_end|>` cannot be chosen. */
  blockEos?: boolean;
  expected: readonly string[];
}

const repeated = [...ANSWER.slice(0, 3), ...CONTINUATION, ...CONTINUATION, ...CONTINUATION];

export const CONVERSATIONS: readonly Conversation[] = [
  { name: 'thinking, text answer', messages: [question], expected: [...THINKING, ...ANSWER] },
  { name: 'no thinking, text answer', messages: [question], templateKwargs: thinkingOff, expected: ANSWER },
  {
    name: 'thinking, tool call',
    messages: [question],
    tools: [WEATHER_TOOL],
    expected: [...THINKING, ...TOOL_CALL],
  },
  {
    name: 'no thinking, tool call',
    messages: [question],
    tools: [WEATHER_TOOL],
    templateKwargs: thinkingOff,
    expected: TOOL_CALL,
  },
  {
    name: 'thinking, after the tool result',
    messages: afterToolResult,
    tools: [WEATHER_TOOL],
    expected: [...THINKING, ...ANSWER],
  },
  {
    name: 'no thinking, after the tool result',
    messages: afterToolResult,
    tools: [WEATHER_TOOL],
    templateKwargs: thinkingOff,
    expected: ANSWER,
  },
  { name: 'end of turn blocked', messages: [question], blockEos: true, expected: [...THINKING, ...repeated] },
  {
    name: 'prefill ending in a colon',
    messages: [question],
    templateKwargs: thinkingOff,
    suffix: 'Sure:',
    expected: [...CONTINUATION, '<|im_end|>'],
  },
  { name: 'unknown context', messages: [], suffix: 'The sky over Paris is', expected: ['<|im_end|>'] },
];

export interface CheckedStep {
  expected: string;
  margin: number;
}

/** Each conversation's steps with their margins; throws at the first token that loses or wins by too little. */
export function checkAnswers(
  hparams: Qwen3HyperParameters,
  weights: Qwen3Weights,
  qwen3: LocalModel,
  idOf: TokenIdOf,
): Map<string, CheckedStep[]> {
  const eos = idOf('<|im_end|>');
  let outputRows: number[] | undefined;
  const report = new Map<string, CheckedStep[]>();
  for (const conversation of CONVERSATIONS) {
    const forward = new Qwen3Forward(hparams, weights, outputRows);
    outputRows = forward.outputRows;
    const rendered =
      conversation.messages.length === 0
        ? ''
        : qwen3.template.render(conversation.messages, conversation.tools ?? null, true, conversation.templateKwargs);
    for (const token of qwen3.encode(rendered + (conversation.suffix ?? ''))) forward.append(token);
    const steps: CheckedStep[] = [];
    for (const piece of conversation.expected) {
      const logits = forward.logits();
      if (conversation.blockEos) logits[eos] = -Infinity;
      const [best, runnerUp] = topTwo(logits);
      const id = idOf(piece);
      const margin = (logits[id] as number) - (logits[best === id ? runnerUp : best] as number);
      if (best !== id || margin <= MIN_MARGIN) {
        const chosen = JSON.stringify(qwen3.decode([best], false));
        throw new Error(
          `${conversation.name}: step ${steps.length} wants ${JSON.stringify(piece)}, the model chooses ${chosen} (margin ${margin.toFixed(1)})`,
        );
      }
      steps.push({ expected: piece, margin });
      forward.append(id);
    }
    report.set(conversation.name, steps);
  }
  return report;
}

function topTwo(logits: Float32Array): [number, number] {
  let best = 0;
  let runnerUp = 1;
  if ((logits[runnerUp] as number) > (logits[best] as number)) [best, runnerUp] = [runnerUp, best];
  for (let i = 2; i < logits.length; i++) {
    const value = logits[i] as number;
    if (value > (logits[best] as number)) [best, runnerUp] = [i, best];
    else if (value > (logits[runnerUp] as number)) runnerUp = i;
  }
  return [best, runnerUp];
}
