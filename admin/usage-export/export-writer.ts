// Writes an export to the response as its pages arrive: each page as one write, waiting for `drain`
// when the client reads slower than the database answers, so at most a page is held in memory. A
// client that goes away ends the loop (and with it the queries) at the next page.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { addSums, emptySums, type ExportEncoder } from './export-encoder.js';
import type { UsageGroupRow } from './usage-pages.js';

export async function writeExport(
  out: Writable,
  pages: AsyncIterable<UsageGroupRow[]>,
  encoder: ExportEncoder,
): Promise<void> {
  let gone = false;
  const leave = (): void => {
    gone = true;
  };
  out.once('close', leave);
  try {
    const totals = emptySums();
    let chunk = encoder.head();
    for await (const page of pages) {
      for (const row of page) {
        addSums(totals, row);
        chunk += encoder.row(row);
      }
      if (!out.write(chunk) && !gone) await drainedOrGone(out);
      chunk = '';
      // Leaving the loop returns the page generator: no further query runs.
      if (gone || out.destroyed) return;
    }
    out.end(chunk + encoder.tail(totals));
  } finally {
    out.off('close', leave);
  }
}

/** Resolves on `drain`, or when the stream closes first (a client gone never drains). */
async function drainedOrGone(out: Writable): Promise<void> {
  const stop = new AbortController();
  try {
    await Promise.race([once(out, 'drain', { signal: stop.signal }), once(out, 'close', { signal: stop.signal })]);
  } finally {
    stop.abort();
  }
}
