/** A response body (undici's Readable) as it arrives, and what stops it: destroying it ends the request. */
export type ReadableBody = AsyncIterable<Buffer> & { destroy(error?: Error): unknown };

/**
 * A response body as UTF-8 text, of at most `maxBytes`; undefined past it, when the body is destroyed
 * at once (nothing more is read or held): an upstream or a search provider that answers without end
 * costs the gateway no more than the bound.
 */
export async function readCappedText(body: ReadableBody, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
