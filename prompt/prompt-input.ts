// What decides a prompt's tokens: the messages, the tools, and vLLM's template extras that a chat
// request may carry (add_generation_prompt, continue_final_message, chat_template_kwargs). Everything
// else in a request (sampling, tool_choice, max_tokens) leaves the prompt alone.
import type { OpenAiMessage, OpenAiTool } from './template-input.js';

export interface PromptInput {
  messages: readonly OpenAiMessage[];
  tools?: readonly OpenAiTool[] | null;
  /** true unless the request says otherwise, as in vLLM's chat endpoint. */
  addGenerationPrompt?: boolean;
  /** The last message is left open for the answer to continue (a prefill), as transformers' `continue_final_message` cuts it. */
  continueFinalMessage?: boolean;
  chatTemplateKwargs?: Readonly<Record<string, unknown>>;
}
