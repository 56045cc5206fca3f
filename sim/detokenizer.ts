// Incremental detokenization: the text each new token adds, never splitting a character. A token
// that ends inside a multi-byte character adds "" and the next one adds the whole character, as
// vLLM's incremental detokenizer does. Special tokens add "" (vLLM's skip_special_tokens).
import { isSpecialToken, tokenBytes } from './qwen3-prompt.js';

export class IncrementalDetokenizer {
  private readonly decoder = new TextDecoder('utf-8');

  push(id: number): string {
    if (isSpecialToken(id)) return '';
    return this.decoder.decode(tokenBytes(id), { stream: true });
  }

  /** Whatever an unfinished character left behind (U+FFFD), at the end of generation. */
  flush(): string {
    return this.decoder.decode();
  }
}

/** The text pieces of a token sequence, one per token. */
export function detokenizePieces(ids: readonly number[]): string[] {
  const detokenizer = new IncrementalDetokenizer();
  const pieces = ids.map((id) => detokenizer.push(id));
  const rest = detokenizer.flush();
  if (rest && pieces.length > 0) pieces[pieces.length - 1] += rest;
  return pieces;
}
