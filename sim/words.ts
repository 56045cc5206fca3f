// The filler answer: ordinary English words picked by a PRNG seeded from the prompt, built
// directly as token ids so its length in tokens is exact. Every word used is one Qwen3 token both
// as " word" and as "Word" (the capitalised first word); the answer ends with a "." token.
import { encode } from './qwen3-prompt.js';
import { prng } from './prng.js';

const WORDS = `the of and to in is was for on that with as by at from this it be are or have not
but had they which one were all we when there can an your more their has been if some would time
will what about out up them into do so other than then its only new could two may first these
any like over such our just also after people most use made many well before must through back
years where much way because good each those work world still long day part water sound small
place great help through line right little old think say every name very form light house
between own city tree state keep never last river paper music open story left study early
plant cover food earth eye start family answer garden number often country table simple bright
quiet green morning market window voice road field letter summer winter ocean valley bridge
island forest stone silver golden gentle careful clear`
  .split(/\s+/)
  .filter((w) => w.length > 0);

let vocabulary: { lower: number[]; capital: number[] } | undefined;

function singleTokenWords(): { lower: number[]; capital: number[] } {
  if (vocabulary) return vocabulary;
  const lower: number[] = [];
  const capital: number[] = [];
  const seen = new Set<string>();
  for (const word of WORDS) {
    if (seen.has(word)) continue;
    seen.add(word);
    const spaced = encode(` ${word}`);
    const upper = encode(word.charAt(0).toUpperCase() + word.slice(1));
    if (spaced.length === 1 && upper.length === 1 && spaced[0] !== undefined && upper[0] !== undefined) {
      lower.push(spaced[0]);
      capital.push(upper[0]);
    }
  }
  vocabulary = { lower, capital };
  return vocabulary;
}

/** `count` token ids of words ending with "." (a lone word when count is 1, nothing when 0). */
export function wordTokens(seed: number, count: number): number[] {
  const { lower, capital } = singleTokenWords();
  const random = prng(seed);
  const pick = (list: number[]): number => list[Math.floor(random() * list.length)] ?? 0;
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(i === 0 ? pick(capital) : pick(lower));
  if (count >= 2) ids[count - 1] = periodToken();
  return ids;
}

let period: number | undefined;

function periodToken(): number {
  period ??= encode('.')[0] ?? 0;
  return period;
}
