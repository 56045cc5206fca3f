// The nesting depth of a JSON text, bounded before it is parsed: everything after the parse (validation,
// estimates, translation, the upstream body, the token counter, serializers) walks the value
// recursively, and a body nested thousands deep would overflow the stack in any of them.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
/** Strings longer than this are skipped with a native search for the closing quote rather than byte by byte. */
const SHORT_STRING = 32;

/**
 * Whether the JSON text in `bytes` nests arrays and objects deeper than `maxDepth` (`[]` is depth 1).
 * One pass over the bytes, counting brackets outside strings. The text need not be valid JSON: an
 * invalid text that is not too deep is left for the parser to refuse.
 */
export function nestsDeeperThan(bytes: Buffer, maxDepth: number): boolean {
  const length = bytes.length;
  let depth = 0;
  for (let at = 0; at < length; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) {
      at = closingQuote(bytes, at + 1);
      if (at === -1) return false;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that ends the string starting at `from`, or -1 if it never ends. */
function closingQuote(bytes: Buffer, from: number): number {
  const length = bytes.length;
  let at = from;
  // Most strings (keys, roles, short values) end within a few bytes: a plain loop is cheapest.
  const shortEnd = Math.min(length, from + SHORT_STRING);
  for (; at < shortEnd; at++) {
    const byte = bytes[at];
    if (byte === BACKSLASH) at++;
    else if (byte === QUOTE) return at;
  }
  if (at >= length) return -1;
  // A long string (a prompt): jump from quote to quote; a quote after an odd run of backslashes is escaped.
  for (;;) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}
