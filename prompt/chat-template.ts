// A model's chat template (Jinja, from its tokenizer_config.json), rendered by @huggingface/jinja
// with the variables transformers' apply_chat_template gives it, as vLLM calls it: the special
// tokens (bos_token, eos_token, ...), the request's chat_template_kwargs, then messages, tools
// and add_generation_prompt; with continue_final_message, the last message is cut open after its
// text, as transformers cuts it. Compiled once.
import { Template } from '@huggingface/jinja';
import { PromptError } from './prompt-error.js';
import type { PromptInput } from './prompt-input.js';
import { toTemplateMessages, toTemplateTools, type TemplateMessage, type TemplateTool } from './template-input.js';

/** tokenizer_config.json's special-token fields: a string, or an AddedToken object `{content}`. */
const SPECIAL_TOKEN_KEYS = [
  'bos_token',
  'eos_token',
  'unk_token',
  'sep_token',
  'pad_token',
  'cls_token',
  'mask_token',
] as const;

export class ChatTemplate {
  readonly #template: Template;
  readonly #specialTokens: Readonly<Record<string, unknown>>;

  constructor(source: string, specialTokens: Readonly<Record<string, unknown>> = {}) {
    this.#template = new Template(source);
    this.#specialTokens = specialTokens;
  }

  /** The template of a tokenizer_config.json, with its special tokens; throws when it has none. */
  static fromTokenizerConfig(config: Readonly<Record<string, unknown>>, origin: string): ChatTemplate {
    const source = config.chat_template;
    if (typeof source !== 'string') throw new Error(`${origin} has no chat_template (a string)`);
    try {
      return new ChatTemplate(source, specialTokensMap(config));
    } catch (error) {
      throw new Error(
        `${origin}: the chat template does not compile (${error instanceof Error ? error.message : error})`,
        { cause: error },
      );
    }
  }

  /** The prompt of an OpenAI-shaped conversation, converted as vLLM converts it (template-input.ts). */
  renderConversation(input: PromptInput): string {
    return this.render(
      toTemplateMessages(input.messages),
      toTemplateTools(input.tools),
      input.addGenerationPrompt ?? true,
      input.chatTemplateKwargs ?? {},
      input.continueFinalMessage ?? false,
    );
  }

  /**
   * The prompt text, exactly as vLLM's apply_chat_template produces it. `kwargs` are vLLM's
   * `chat_template_kwargs` (e.g. `{enable_thinking: false}`); `continueFinalMessage` leaves the last
   * message open (then `addGenerationPrompt` must be false). A template error is a PromptError.
   */
  render(
    messages: readonly TemplateMessage[],
    tools: readonly TemplateTool[] | null,
    addGenerationPrompt = true,
    kwargs: Readonly<Record<string, unknown>> = {},
    continueFinalMessage = false,
  ): string {
    if (continueFinalMessage && addGenerationPrompt)
      throw new PromptError(
        'continue_final_message and add_generation_prompt are not compatible: set add_generation_prompt to false.',
        'template',
      );
    let text: string;
    try {
      text = this.#template.render({
        ...this.#specialTokens,
        ...kwargs,
        messages,
        tools: tools ?? null,
        add_generation_prompt: addGenerationPrompt,
      });
    } catch (err) {
      throw new PromptError(err instanceof Error ? err.message : String(err), 'template');
    }
    return continueFinalMessage ? openFinalMessage(text, messages.at(-1)?.content ?? '') : text;
  }
}

/**
 * The rendered chat cut just after the last message's text, as transformers' apply_chat_template does for
 * `continue_final_message`: the end-of-turn marks after it go, so the model writes on in the same turn.
 * Its last occurrence of the stripped text is the place; a leading or trailing space the template kept
 * stays, one it trimmed stays out.
 */
function openFinalMessage(rendered: string, final: string): string {
  const stripped = final.trim();
  const at = rendered.lastIndexOf(stripped);
  if (at < 0)
    throw new PromptError(
      'continue_final_message is set but the final message does not appear in the chat after applying the chat template.',
      'template',
    );
  const kept = final.trimStart();
  const end = rendered.slice(at, at + kept.length) === final ? at + kept.length : at + stripped.length;
  return rendered.slice(0, end);
}

/** transformers' special_tokens_map: the special tokens a tokenizer_config.json sets, as strings. */
function specialTokensMap(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const text = tokenText(config[key]);
    if (text !== undefined) map[key] = text;
  }
  const additional = config.additional_special_tokens;
  if (Array.isArray(additional)) {
    map.additional_special_tokens = additional.map(tokenText).filter((text): text is string => text !== undefined);
  }
  return map;
}

function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return undefined;
}
