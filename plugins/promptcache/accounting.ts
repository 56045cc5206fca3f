// How a prompt's tokens split into cache reads, cache writes per TTL and the rest (Anthropic's model,
// "mixing TTLs"): A = the tokens of the longest cached prefix; B = the end of the last 1-hour
// breakpoint beyond A; C = the end of the last breakpoint. Reads A, 1-hour writes B − A, 5-minute
// writes C − B; the rest (prompt − C, or prompt − A) is plain input. No token is both read and
// written, and nothing exceeds the prompt.
//
// A is the organization's own registry hit. The upstream's cached tokens (vLLM's prefix cache) raise
// it only once that hit covers every marked prefix: the upstream's cache is shared by all
// organizations, so within the marked prefixes only the organization's own entries count (another
// organization's identical prompt must not make this one's a read), while beyond them, in a prompt
// whose marked part this organization has cached, the upstream's larger figure is a read.
import type { CacheTtl } from './prefixes.js';

export interface CacheSplit {
  read: number;
  write5m: number;
  write1h: number;
}

export interface MarkedPrefix {
  /** The prefix's tokens, up to and including its marked block. */
  tokens: number;
  ttl: CacheTtl;
}

export function splitPrompt(
  promptTokens: number,
  hitTokens: number,
  upstreamCached: number,
  marks: readonly MarkedPrefix[],
): CacheSplit {
  const hit = Math.min(promptTokens, hitTokens);
  const lastMark = Math.min(promptTokens, Math.max(0, ...marks.map((mark) => mark.tokens)));
  const read = hit >= lastMark ? Math.min(promptTokens, Math.max(hit, upstreamCached)) : hit;
  let oneHour = read;
  let end = read;
  for (const mark of marks) {
    const tokens = Math.min(mark.tokens, promptTokens);
    if (tokens <= read) continue;
    end = Math.max(end, tokens);
    if (mark.ttl === '1h') oneHour = Math.max(oneHour, tokens);
  }
  return { read, write1h: oneHour - read, write5m: end - oneHour };
}
