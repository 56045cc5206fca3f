import t from 'tap';
import { composeChain } from '../../../../proxy/exchange/chain.js';
import type { Exchange } from '../../../../core/exchange.js';
import { iterate, streamOf } from '../../../../proxy/stream/event-bridges.js';
import type { EventStream } from '../../../../core/event-stream.js';
import type { Plugin } from '../../../../core/plugin.js';
import { deltaEvent } from '../../../kit/chunks.js';

function oneChunk(content: string): EventStream {
  const event = deltaEvent({ content });
  return streamOf(
    (async function* () {
      yield event;
    })(),
  );
}

const exchange = {} as Exchange;

t.test('plugins run as an onion in config order: in on the way in, reversed on the way out', async (t) => {
  const trace: string[] = [];
  const plugin = (name: string): Plugin => ({
    name,
    async handle(_exchange, next) {
      trace.push(`in ${name}`);
      const events = await next();
      trace.push(`out ${name}`);
      return events;
    },
  });
  const chain = composeChain([plugin('a'), plugin('b')], async () => {
    trace.push('upstream');
    return oneChunk('hi');
  });
  await chain.generate(exchange);
  t.same(trace, ['in a', 'in b', 'upstream', 'out b', 'out a']);
});

t.test('onRequest hooks run in order and plugins without a hook are skipped', async (t) => {
  const trace: string[] = [];
  const chain = composeChain(
    [
      { name: 'a', onRequest: () => void trace.push('a') },
      { name: 'none' },
      { name: 'c', onRequest: async () => void trace.push('c') },
    ],
    async () => oneChunk(''),
  );
  for (const hook of chain.onRequest) await hook(exchange);
  t.same(trace, ['a', 'c']);
});

t.test('a plugin may answer early without calling next', async (t) => {
  let upstreamCalled = false;
  const chain = composeChain(
    [
      {
        name: 'deny',
        handle: async () => {
          throw new Error('denied');
        },
      },
    ],
    async () => {
      upstreamCalled = true;
      return oneChunk('');
    },
  );
  await t.rejects(chain.generate(exchange), { message: 'denied' });
  t.equal(upstreamCalled, false);
});

t.test('a plugin may call next more than once and wrap the events', async (t) => {
  let calls = 0;
  const twice: Plugin = {
    name: 'twice',
    async handle(_exchange, next): Promise<EventStream> {
      const first = await next();
      const second = await next();
      return streamOf(
        (async function* () {
          yield* iterate(first);
          yield* iterate(second);
        })(),
      );
    },
  };
  const chain = composeChain([twice], async () => oneChunk(`call ${++calls}`));
  const seen: string[] = [];
  for await (const event of iterate(await chain.generate(exchange)))
    seen.push(event.type === 'chunk' ? String(event.chunk.choices[0]?.delta.content) : event.type);
  t.same(seen, ['call 1', 'call 2']);
});

t.test('a plugin may return its events as an async generator over the events of next()', async (t) => {
  const tagged: Plugin = {
    name: 'tagged',
    async handle(_exchange, next) {
      const events = await next();
      return (async function* () {
        for await (const event of events) yield event;
        yield { type: 'search_call', id: 's', query: 'after' } as const;
      })();
    },
  };
  const chain = composeChain([tagged], async () => oneChunk('hi'));
  const seen: string[] = [];
  for await (const event of await chain.generate(exchange)) seen.push(event.type);
  t.same(seen, ['chunk', 'search_call']);
});
