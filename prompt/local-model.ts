// A model's own tokenizer (tokenizer.json, by @lenml/tokenizers) and chat template: the prompt of a
// conversation rendered and encoded exactly as vLLM does it (the template's text, encoded without
// adding special tokens: the template writes them itself). Loaded once per thread and per set of
// files (about 0.5 s and 120 MB for Qwen3), then shared: the embedded sim and the gateway's
// counter use the same instance.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { TokenizerLoader } from '@lenml/tokenizers';
import { ChatTemplate } from './chat-template.js';
import type { ModelFiles } from './model-files.js';
import type { PromptInput } from './prompt-input.js';

/** The part of @lenml/tokenizers' PreTrainedTokenizer used here. */
interface Tokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  decode(ids: number[], options: { skip_special_tokens: boolean }): string;
  model: { vocab: string[] };
  added_tokens: ReadonlyArray<{ id: number; content: string; special: boolean }>;
}

const tokenizers = new Map<string, Tokenizer>();
const loaded = new Map<string, LocalModel>();

export class LocalModel {
  readonly template: ChatTemplate;
  readonly #tokenizer: Tokenizer;

  private constructor(tokenizer: Tokenizer, template: ChatTemplate) {
    this.#tokenizer = tokenizer;
    this.template = template;
  }

  /** The model of these files, loaded on the first call in this thread (synchronously); a tokenizer is shared by every template override. */
  static load(files: ModelFiles): LocalModel {
    const key = [files.tokenizerJson, files.tokenizerConfig, files.chatTemplate ?? ''].join('\n');
    let model = loaded.get(key);
    if (model === undefined) {
      const tokenizerConfig = readJson(files.tokenizerConfig);
      const tokenizerKey = `${files.tokenizerJson}\n${files.tokenizerConfig}`;
      let tokenizer = tokenizers.get(tokenizerKey);
      if (tokenizer === undefined) {
        tokenizer = TokenizerLoader.fromPreTrained({
          tokenizerJSON: readJson(files.tokenizerJson),
          tokenizerConfig,
        }) as unknown as Tokenizer;
        dropBuildInputs(tokenizer);
        tokenizers.set(tokenizerKey, tokenizer);
      }
      model = new LocalModel(tokenizer, chatTemplateOf(files, tokenizerConfig));
      loaded.set(key, model);
    }
    return model;
  }

  /**
   * What can be checked of these files without loading the tokenizer (milliseconds, no memory kept):
   * each is a file, tokenizer_config.json is a JSON object, and the chat template compiles. Throws
   * an Error naming the file, so a bad config fails at start while the load itself waits for a need.
   */
  static check(files: ModelFiles): void {
    for (const path of [files.tokenizerJson, files.tokenizerConfig, files.chatTemplate]) {
      if (path !== undefined && !isFile(path)) throw new Error(`${path} is not a readable file`);
    }
    chatTemplateOf(files, readJson(files.tokenizerConfig));
  }

  /** The prompt text of a conversation; a PromptError when it cannot be rendered. */
  prompt(input: PromptInput): string {
    return this.template.renderConversation(input);
  }

  /** The number of prompt tokens the upstream counts for this conversation. */
  count(input: PromptInput): number {
    return this.encode(this.prompt(input)).length;
  }

  /** Token ids of a text; special-token strings in it (`<|im_start|>`) become their single ids. */
  encode(text: string): number[] {
    if (text.length === 0) return [];
    return this.#tokenizer.encode(text, { add_special_tokens: false });
  }

  /** Text of token ids; `skipSpecialTokens` drops `<|im_end|>` and the like, as vLLM's output does. */
  decode(ids: readonly number[], skipSpecialTokens = false): string {
    if (ids.length === 0) return '';
    return this.#tokenizer.decode([...ids], { skip_special_tokens: skipSpecialTokens });
  }

  /** The tokenizer's string for each id (byte-level form, e.g. `Ġworld`); index = id. */
  get vocab(): readonly string[] {
    return this.#tokenizer.model.vocab;
  }

  /** Tokens added on top of the vocabulary (`<|im_end|>`), with whether they are special. */
  get addedTokens(): ReadonlyArray<{ id: number; content: string; special: boolean }> {
    return this.#tokenizer.added_tokens;
  }
}

/**
 * @lenml/tokenizers' BPE model keeps what it built its maps from: tokenizer.json's raw `vocab` and
 * `merges` (as `model.config`) and the merges split into pairs (`model.merges`), which no encode or
 * decode reads again (it reads `bpe_ranks`, `tokens_to_ids` and `vocab`): about 16 MB of the 46 MB
 * Qwen3's tokenizer keeps, in every thread that loads it. Emptied rather than deleted, so that the
 * model's shape, hot in encode, stays as it is.
 */
function dropBuildInputs(tokenizer: Tokenizer): void {
  const model = tokenizer.model as { bpe_ranks?: unknown; merges?: unknown; config?: Record<string, unknown> };
  if (!(model.bpe_ranks instanceof Map)) return;
  model.merges = [];
  if (model.config !== undefined) {
    model.config.vocab = {};
    model.config.merges = [];
  }
}

/** The chat template file's, else tokenizer_config.json's template, compiled, with the config's special tokens. */
function chatTemplateOf(files: ModelFiles, tokenizerConfig: Record<string, unknown>): ChatTemplate {
  const config =
    files.chatTemplate === undefined
      ? tokenizerConfig
      : { ...tokenizerConfig, chat_template: readFileSync(files.chatTemplate, 'utf8') };
  return ChatTemplate.fromTokenizerConfig(config, files.chatTemplate ?? files.tokenizerConfig);
}

function readJson(path: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${path} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

function isFile(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
