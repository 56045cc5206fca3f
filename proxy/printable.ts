// Client bytes quoted in an error message: printable ASCII only, everything else escaped, and short.

const UNPRINTABLE = /[^\x20-\x7e]/g;

/** `text` cut to `max` characters, each character outside printable ASCII written as `\uXXXX`. */
export function printable(text: string, max = 120): string {
  const cut = text.length > max ? `${text.slice(0, max)}...` : text;
  return cut.replace(UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
