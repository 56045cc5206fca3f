// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, its quotes doubled.
// Text that a spreadsheet would run as a formula (a key's name such as `=HYPERLINK(…)`) gets a leading
// apostrophe first, as OWASP advises, so it shows as the text it is.
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A text value, neutralised and quoted as needed. */
export function csvText(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One record: its fields (numbers as they are, text through csvText) and CRLF. */
export function csvRecord(fields: ReadonlyArray<string | number>): string {
  return fields.map((field) => (typeof field === 'number' ? String(field) : csvText(field))).join(',') + '\r\n';
}
