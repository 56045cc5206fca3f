// The labelled approximation: the conversation rendered with the ChatML template
// (chatml-template.ts) and encoded with a tiktoken encoding (js-tiktoken), the two ChatML markers
// counting one token each. Not the model's tokenizer, so not exact (`exact: false`).
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { ChatTemplate } from '../prompt/chat-template.js';
import { CHATML_MARKERS, CHATML_TEMPLATE } from './chatml-template.js';
import type { PromptInput } from '../prompt/prompt-input.js';

export const TIKTOKEN_ENCODINGS = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base', 'gpt2'] as const;
export type TiktokenEncodingName = (typeof TIKTOKEN_ENCODINGS)[number];

const loaded = new Map<TiktokenEncodingName, TiktokenModel>();

export class TiktokenModel {
  readonly #encoding: Tiktoken;
  readonly #template = new ChatTemplate(CHATML_TEMPLATE);

  private constructor(ranks: TiktokenBPE) {
    // The markers get ids past the encoding's own; only their count matters here.
    const top = Math.max(...Object.values(ranks.special_tokens), 1_000_000);
    this.#encoding = new Tiktoken(ranks, Object.fromEntries(CHATML_MARKERS.map((marker, i) => [marker, top + 1 + i])));
  }

  /** The encoding's model, loaded once per thread (o200k_base: about 0.3 s). */
  static async load(encoding: TiktokenEncodingName): Promise<TiktokenModel> {
    let model = loaded.get(encoding);
    if (model === undefined) {
      model = new TiktokenModel(await loadRanks(encoding));
      loaded.set(encoding, model);
    }
    return model;
  }

  prompt(input: PromptInput): string {
    return this.#template.renderConversation(input);
  }

  count(input: PromptInput): number {
    return this.encode(this.prompt(input)).length;
  }

  /** Every other special-token text (`<|endoftext|>`) in the input is encoded as plain text. */
  encode(text: string): number[] {
    return this.#encoding.encode(text, [...CHATML_MARKERS], []);
  }
}

async function loadRanks(encoding: TiktokenEncodingName): Promise<TiktokenBPE> {
  switch (encoding) {
    case 'o200k_base':
      return (await import('js-tiktoken/ranks/o200k_base')).default;
    case 'cl100k_base':
      return (await import('js-tiktoken/ranks/cl100k_base')).default;
    case 'p50k_base':
      return (await import('js-tiktoken/ranks/p50k_base')).default;
    case 'r50k_base':
      return (await import('js-tiktoken/ranks/r50k_base')).default;
    case 'gpt2':
      return (await import('js-tiktoken/ranks/gpt2')).default;
    default: {
      const never: never = encoding;
      throw new Error(`unknown tiktoken encoding ${String(never)}`);
    }
  }
}
