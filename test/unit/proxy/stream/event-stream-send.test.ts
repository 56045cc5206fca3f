// proxy/respond.ts sendEventStream: how a stream reaches the client when the encoder itself fails.
import { createServer } from 'node:http';
import t from 'tap';
import type { CanonicalEvent } from '../../../../core/canonical.js';
import type { StreamEncoder } from '../../../../core/dialect.js';
import type { GatewayError } from '../../../../core/errors.js';
import { closeServer, listen, urlOf } from '../../../../http/listen.js';
import { streamOf } from '../../../../proxy/stream/event-bridges.js';
import { sendEventStream } from '../../../../proxy/respond.js';
import { textStream } from '../../../fixtures/chunks.js';

t.test(
  'regression: an encoder that failed at its start left the events unread, so the meter never settled its hold',
  async (t) => {
    const seen: string[] = [];
    async function* events(): AsyncGenerator<CanonicalEvent> {
      try {
        yield* textStream;
        seen.push('read to the end');
      } finally {
        seen.push('closed');
      }
    }
    const encoder: StreamEncoder = {
      start: () => {
        throw new Error('cannot encode the start');
      },
      event: (_event, out) => out.frame(null, 'never'),
      end: (out) => out.frame(null, 'end'),
      error: (error: GatewayError, out) => out.frame('error', error.code),
    };
    let failure: GatewayError | undefined;
    const server = createServer((_req, res) => {
      void sendEventStream(res, {}, encoder, streamOf(events()), new AbortController().signal, 60_000, undefined).then(
        (error) => (failure = error),
      );
    });
    await listen(server, 0, '127.0.0.1');
    t.teardown(() => closeServer(server));
    const response = await fetch(urlOf(server));
    t.equal(
      await response.text(),
      'event: error\ndata: GW_ERR_INTERNAL\n\n',
      'the client gets the error event, and no event of the unread stream',
    );
    t.same(
      seen,
      ['read to the end', 'closed'],
      'the events were read to their end, so every plugin wrapping them finished',
    );
    t.equal(failure?.code, 'GW_ERR_INTERNAL');
  },
);
