// Citation markers in the model's streamed text: `[n]` cites the source numbered n. A marker may arrive
// split across deltas (`[` … `12]`), so a possible start of one at the end of a delta is held back
// until the next delta (or the end) decides it; everything else passes on at once.

/** A run of text; when `marker` is set, the run ends with that marker. */
export interface TextPiece {
  text: string;
  marker?: { text: string; number: number };
}

const MARKER = /\[(\d{1,3})\]/g;
/** What could still become a marker: `[`, `[1`, `[12`, `[123` at the very end. */
const PARTIAL = /\[\d{0,3}$/;

export class MarkerScanner {
  #held = '';

  /** The text's pieces, split after each complete marker; a trailing partial marker is kept for later. */
  push(delta: string): TextPiece[] {
    const text = this.#held + delta;
    this.#held = '';
    const pieces: TextPiece[] = [];
    let from = 0;
    for (const match of text.matchAll(MARKER)) {
      const end = match.index + match[0].length;
      pieces.push({ text: text.slice(from, end), marker: { text: match[0], number: Number(match[1]) } });
      from = end;
    }
    const rest = text.slice(from);
    const partial = PARTIAL.exec(rest);
    const ready = partial === null ? rest : rest.slice(0, partial.index);
    if (partial !== null) this.#held = partial[0];
    if (ready !== '') pieces.push({ text: ready });
    return pieces;
  }

  /** Whether text is held back (the fast path needs none held and no `[` in the delta). */
  get holding(): boolean {
    return this.#held !== '';
  }

  /** The end of the text: what was held is plain text after all. */
  flush(): string {
    const held = this.#held;
    this.#held = '';
    return held;
  }
}
