// When to try again, on a 429 or a 503: `retry-after` in whole seconds (what every client reads) and
// `retry-after-ms` (what the OpenAI and Anthropic SDKs prefer when present).

/** `retry-after` in whole seconds, rounded up and at least 1; `retry-after-ms` at least 1. */
export function writeRetryAfter(headers: Record<string, string>, waitMs: number): void {
  const ms = Math.max(1, Math.ceil(waitMs));
  headers['retry-after'] = String(Math.ceil(ms / 1000));
  headers['retry-after-ms'] = String(ms);
}
