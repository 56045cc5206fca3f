// The prompt of a chat request: rendered and tokenized as vLLM does (prompt/template-input.ts
// normalises the messages and tools, the Qwen3 template renders them), cached by content so that
// repeated requests (benchmarks, retries, /tokenize then chat) tokenize once.
import { PromptError } from '../prompt/prompt-error.js';
import { toTemplateMessages, toTemplateTools, type TemplateMessage } from '../prompt/template-input.js';
import type { SimChatMessage, FunctionTool } from './chat-types.js';
import { badRequest } from './errors.js';
import { hashString } from './hash.js';
import { Lru } from './lru.js';
import { encode, renderPrompt } from './qwen3-prompt.js';

export interface ChatPromptInput {
  messages: readonly SimChatMessage[];
  tools: readonly FunctionTool[] | null;
  addGenerationPrompt?: boolean;
  continueFinalMessage?: boolean;
  chatTemplateKwargs?: Readonly<Record<string, unknown>>;
}

export interface ChatPrompt {
  text: string;
  ids: readonly number[];
  /** Hash of the rendered text: seeds the generated answer. */
  seed: number;
}

const cache = new Lru<string, ChatPrompt>(64);

/** Throws a 400 SimError when the template rejects the conversation or arguments are not JSON. */
export function chatPrompt(input: ChatPromptInput): ChatPrompt {
  const messages = templateMessages(input.messages);
  const tools = toTemplateTools(input.tools);
  const addGenerationPrompt = input.addGenerationPrompt ?? true;
  const continueFinalMessage = input.continueFinalMessage ?? false;
  const kwargs = input.chatTemplateKwargs ?? {};
  const key = JSON.stringify([messages, tools, addGenerationPrompt, continueFinalMessage, kwargs]);
  const hit = cache.get(key);
  if (hit) return hit;
  let text: string;
  try {
    text = renderPrompt(messages, tools, addGenerationPrompt, kwargs, continueFinalMessage);
  } catch (err) {
    throw badRequest(
      `Error in applying chat template from request: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const prompt: ChatPrompt = { text, ids: encode(text), seed: hashString(text) };
  cache.set(key, prompt);
  return prompt;
}

/** Number of prompt tokens vLLM counts for these messages and tools. */
export function countChatTokens(input: ChatPromptInput): number {
  return chatPrompt(input).ids.length;
}

function templateMessages(messages: readonly SimChatMessage[]): TemplateMessage[] {
  try {
    return toTemplateMessages(messages);
  } catch (err) {
    if (err instanceof PromptError) throw badRequest(err.message, err.param);
    throw err;
  }
}
