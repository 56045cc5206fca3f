// Writing an export (admin/usage-export/export-writer.ts): a page per write, the next page read only
// once the client has taken the last (no read-ahead, so never the whole file in memory), and a client
// gone stops the reading.
import { Writable } from 'node:stream';
import t from 'tap';
import { exportEncoder } from '../../../../admin/usage-export/export-encoder.js';
import { writeExport } from '../../../../admin/usage-export/export-writer.js';
import type { UsageGroupRow } from '../../../../admin/usage-export/usage-pages.js';

const encoder = exportEncoder('csv', {
  orgId: 'org_1',
  request: { fromDay: 20_000, toDay: 20_000, groups: ['dialect'], format: 'csv' },
});

function row(n: number): UsageGroupRow {
  return {
    values: { dialect: `d${n}` },
    requests: 1,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    searches: 0,
    cost_micros: n,
  };
}

/** Pages of two rows; `pulled` counts the pages read, `returned` whether the reader stopped the source. */
function pageSource(pages: number) {
  const source = {
    pulled: 0,
    returned: false,
    async *pages(): AsyncGenerator<UsageGroupRow[]> {
      try {
        for (let page = 0; page < pages; page++) {
          source.pulled++;
          yield [row(page * 2), row(page * 2 + 1)];
        }
      } finally {
        source.returned = true;
      }
    },
  };
  return source;
}

/** A client that takes a write only when the test says so: until then the writer sees a full socket. */
function slowClient() {
  const writes: Array<{ text: string; take: () => void }> = [];
  let arrived: (() => void) | undefined;
  const out = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, take) {
      writes.push({ text: chunk.toString(), take: () => take() });
      arrived?.();
    },
  });
  return {
    out,
    writes,
    /** Resolves when the writer has made its nth write. */
    async written(n: number): Promise<void> {
      while (writes.length < n) await new Promise<void>((resolve) => (arrived = resolve));
    },
  };
}

t.test('each page is one write, and the next page is read only after the client took the last', async (t) => {
  const source = pageSource(3);
  const client = slowClient();
  const done = writeExport(client.out, source.pages(), encoder);
  for (let page = 1; page <= 3; page++) {
    await client.written(page);
    t.equal(source.pulled, page, `page ${page} written, no page read ahead while the client is full`);
    client.writes[page - 1]!.take();
  }
  await done;
  await client.written(4);
  client.writes[3]!.take();
  t.match(client.writes[0]!.text, /^dialect,requests,.*\r\nd0,1,.*\r\nd1,1,/, 'the header with the first page');
  t.match(client.writes[3]!.text, /^total,6,0,0,0,0,0,15,0.000015\r\n$/, 'the totals row last');
});

t.test('a client that goes away stops the reading of pages', async (t) => {
  const source = pageSource(1000);
  const client = slowClient();
  const done = writeExport(client.out, source.pages(), encoder);
  await client.written(1);
  client.out.destroy();
  await done;
  t.equal(source.pulled, 1, 'no page read after the client left');
  t.ok(source.returned, 'the source was closed');
});
