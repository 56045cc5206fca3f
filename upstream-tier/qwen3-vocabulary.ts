// Qwen3's tokenizer as a GGUF file carries it, laid out the way llama.cpp's convert_hf_to_gguf.py
// lays out a Hugging Face BPE tokenizer (get_vocab_base, _set_vocab_gpt2, gguf-py's SpecialVocab):
// one token string per embedding row, ids the model never uses padded as `[PAD{id}]`, added
// tokens typed CONTROL when special or shaped `<|…|>` and USER_DEFINED otherwise (`<think>`,
// `<tool_call>`), the merges as "left right" strings, and the chat template unchanged.
import { readFileSync } from 'node:fs';

/** gguf-py's TokenType. */
export const TokenType = { normal: 1, control: 3, userDefined: 4, unused: 5 } as const;

export interface Qwen3Vocabulary {
  tokens: string[];
  tokenTypes: number[];
  merges: string[];
  chatTemplate: string;
  /** `<|endoftext|>`: Qwen3's config.json names it bos_token_id (tokenizer_config.json has no bos_token). */
  bosId: number;
  /** `<|im_end|>`, the end of every turn. */
  eosId: number;
  /** `<|endoftext|>`. */
  padId: number;
  addBos: boolean;
}

interface TokenizerJson {
  model: { vocab: Record<string, number>; merges: Array<[string, string] | string> };
  added_tokens: Array<{ id: number; content: string; special: boolean }>;
}

interface TokenizerConfig {
  chat_template: string;
  eos_token: string;
  pad_token: string;
  add_bos_token: boolean;
}

/** The vocabulary of `rows` embedding rows (Qwen3's config pads 151,669 tokens to 151,936). */
export function qwen3Vocabulary(
  files: { tokenizerJson: string; tokenizerConfig: string },
  rows: number,
): Qwen3Vocabulary {
  const tokenizer = JSON.parse(readFileSync(files.tokenizerJson, 'utf8')) as TokenizerJson;
  const config = JSON.parse(readFileSync(files.tokenizerConfig, 'utf8')) as TokenizerConfig;

  const tokens = Array.from({ length: rows }, (_, id) => `[PAD${id}]`);
  const tokenTypes = new Array<number>(rows).fill(TokenType.unused);
  for (const [token, id] of Object.entries(tokenizer.model.vocab)) {
    tokens[checkedRow(id, rows)] = token;
    tokenTypes[id] = TokenType.normal;
  }
  const added = new Map<string, number>();
  for (const token of tokenizer.added_tokens) {
    tokens[checkedRow(token.id, rows)] = token.content;
    const looksSpecial = token.content.startsWith('<|') && token.content.endsWith('|>');
    tokenTypes[token.id] = token.special || looksSpecial ? TokenType.control : TokenType.userDefined;
    added.set(token.content, token.id);
  }

  const idOf = (content: string): number => {
    const id = added.get(content);
    if (id === undefined) throw new Error(`${files.tokenizerJson} has no added token ${content}`);
    return id;
  };
  const endOfText = idOf('<|endoftext|>');
  return {
    tokens,
    tokenTypes,
    merges: tokenizer.model.merges.map(mergeString),
    chatTemplate: config.chat_template,
    bosId: endOfText,
    eosId: idOf(config.eos_token),
    padId: idOf(config.pad_token),
    addBos: config.add_bos_token,
  };
}

function checkedRow(id: number, rows: number): number {
  if (!Number.isInteger(id) || id < 0 || id >= rows) throw new Error(`token id ${id} is outside ${rows} rows`);
  return id;
}

/**
 * A merge as GGUF stores it: "left right". tokenizer.json's newer pair form may hold spaces
 * inside a part, which gguf-py writes as U+0120 (the byte-level stand-in for a space).
 */
function mergeString(merge: [string, string] | string): string {
  if (typeof merge === 'string') return merge;
  return merge.map((part) => part.replaceAll(' ', '\u0120')).join(' ');
}
