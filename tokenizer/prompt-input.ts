// What decides a prompt's tokens: the messages, the tools, and vLLM's two template extras that a
// chat request may carry (add_generation_prompt, chat_template_kwargs). Everything else in a
// request (sampling, tool_choice, max_tokens) leaves the prompt alone.
import type { ChatRequest } from '../proxy/canonical.js';
import type { OpenAiMessage, OpenAiTool } from './template-input.js';

export interface PromptInput {
  messages: readonly OpenAiMessage[];
  tools?: readonly OpenAiTool[] | null;
  /** true unless the request says otherwise, as in vLLM's chat endpoint. */
  addGenerationPrompt?: boolean;
  chatTemplateKwargs?: Readonly<Record<string, unknown>>;
}

export function promptInput(request: ChatRequest): PromptInput {
  const input: PromptInput = { messages: request.messages, tools: request.tools ?? null };
  if (typeof request.add_generation_prompt === 'boolean') input.addGenerationPrompt = request.add_generation_prompt;
  const kwargs = request.chat_template_kwargs;
  if (typeof kwargs === 'object' && kwargs !== null && !Array.isArray(kwargs)) input.chatTemplateKwargs = kwargs as Record<string, unknown>;
  return input;
}
