import type { ChatRequest } from '../core/canonical.js';
import type { PromptInput } from '../prompt/prompt-input.js';
import { continuedPrefill } from '../core/prefill.js';

/**
 * The part of a canonical request that decides its prompt (prompt/prompt-input.ts). The client's thinking
 * switch is counted as Qwen3-style templates read it (`enable_thinking`), as the default flavors send it;
 * a prefill as the continuation the upstream is asked for (its last turn open, no generation prompt).
 */
export function promptInput(request: ChatRequest): PromptInput {
  const input: PromptInput = { messages: request.messages, tools: request.tools ?? null };
  const extra = request.extra_fields;
  if (typeof extra?.add_generation_prompt === 'boolean') input.addGenerationPrompt = extra.add_generation_prompt;
  if (continuedPrefill(request) !== undefined) {
    input.addGenerationPrompt = false;
    input.continueFinalMessage = true;
  }
  const kwargs = extra?.chat_template_kwargs;
  if (typeof kwargs === 'object' && kwargs !== null && !Array.isArray(kwargs))
    input.chatTemplateKwargs = kwargs as Record<string, unknown>;
  const thinking = request.gateway?.enable_thinking;
  if (thinking !== undefined) input.chatTemplateKwargs = { ...input.chatTemplateKwargs, enable_thinking: thinking };
  return input;
}
