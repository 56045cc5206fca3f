// Client bytes quoted in an error message: printable ASCII only, everything else escaped, and short.

const UNPRINTABLE = /[^\x20-\x7e]/g;

/** `text` cut to `max` characters, each character outside printable ASCII written as `\uXXXX`. */
export function printable(text: string, max = 120): string {
  const cut = text.length > max ? `${text.slice(0, max)}...` : text;
  return cut.replace(UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// What a value from a request body may not bring into a message as it is: controls (C0, DEL, C1), format
// characters (bidi overrides, zero-width), lone surrogates, line and paragraph separators, U+FFFD; and the
// quote and the backslash, so the quoted value reads back exactly. Other text (any script) stays as it is.
const UNSAFE_IN_QUOTES = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\ufffd'\\]/gu;

/**
 * A value from a request body (a block type, a tool name, a field path) quoted for an error message: in
 * single quotes, cut to `max` characters, each unsafe character escaped as JSON escapes it (`\u0000`),
 * `'` and `\` with a backslash.
 */
export function quoted(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? value : String(value);
  let cut = text.length > max ? text.slice(0, max) : text;
  // Not half a surrogate pair at the cut.
  if (cut.length < text.length && /[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const escaped = cut.replace(UNSAFE_IN_QUOTES, (char) =>
    char === "'" || char === '\\'
      ? `\\${char}`
      : Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join(
          '',
        ),
  );
  return `'${escaped}'${cut.length < text.length ? '...' : ''}`;
}
