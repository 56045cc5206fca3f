// proxy/stream/observe.ts: plugins that watch the response share one pass over its events, see each event
// before it goes on, and see the end exactly once, before the reader does, however the events ended.
import t from 'tap';
import type { ResponseEvent } from '../../../../core/canonical.js';
import { observe, type EventObserver, type EventsEnd } from '../../../../proxy/stream/observe.js';
import { iterate, streamOf } from '../../../../proxy/stream/event-bridges.js';
import { EventStage } from '../../../../proxy/stream/event-stage.js';
import type { EventStream } from '../../../../core/event-stream.js';
import type { UsageWatch } from '../../../../proxy/stream/usage-watch.js';
import { textStream, USAGE } from '../../../fixtures/chunks.js';

/** The fixture's events, noting how their reader left them. */
function upstream(trace: string[], failAfter?: number): EventStream {
  return streamOf(
    (async function* () {
      try {
        let sent = 0;
        for (const event of textStream) {
          if (sent++ === failAfter) throw new Error('stream cut');
          yield event;
        }
        trace.push('upstream ended');
      } finally {
        trace.push('upstream closed');
      }
    })(),
  );
}

/** An observer that writes what it sees into `trace` under `name`. */
function tracer(name: string, trace: string[], ends: EventsEnd[] = []): EventObserver {
  return {
    onEvent: (event) => void trace.push(`${name} ${label(event)}`),
    onEnd: (end) => {
      ends.push(end);
      trace.push(`${name} end ${end.kind}`);
    },
  };
}

function label(event: ResponseEvent): string {
  if (event.type !== 'chunk') return event.type;
  return event.chunk.choices.length === 0 ? 'usage' : `"${event.chunk.choices[0]?.delta.content ?? ''}"`;
}

/** A plugin's stage that changes the events: the text in capitals. */
class Shouting extends EventStage {
  protected take(event: ResponseEvent): void {
    const choice = event.type === 'chunk' ? event.chunk.choices[0] : undefined;
    if (event.type !== 'chunk' || typeof choice?.delta.content !== 'string') {
      this.emit(event);
      return;
    }
    const delta = { content: choice.delta.content.toUpperCase() };
    this.emit({ ...event, chunk: { ...event.chunk, choices: [{ ...choice, delta }] } });
  }

  protected finish(): void {}
}

/** Reads the events as the client's encoder does: a sink, each event as it is pushed. */
function readAll(events: EventStream, trace: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    events.pipe({
      onEvent: (event) => void trace.push(`reader ${label(event)}`),
      onEnd: () => {
        trace.push('reader end');
        resolve();
      },
      onError: reject,
    }),
  );
}

t.test(
  'observers of plugins next to each other share one pass: each event goes to the inner one, then the outer one, then on',
  async (t) => {
    const trace: string[] = [];
    const inner = observe(upstream(trace), tracer('meter', trace));
    const outer = observe(inner, tracer('ratelimit', trace));
    t.equal(outer, inner, 'the outer observer joined the pass: no second generator');
    await readAll(outer, trace);
    t.same(
      trace,
      [
        'meter ""',
        'ratelimit ""',
        'reader ""',
        'meter "Hello"',
        'ratelimit "Hello"',
        'reader "Hello"',
        'meter " world"',
        'ratelimit " world"',
        'reader " world"',
        'meter usage',
        'ratelimit usage',
        'reader usage',
        'upstream ended',
        'upstream closed',
        'meter end ended',
        'ratelimit end ended',
        'reader end',
      ],
      'the ends run in the same order, before the reader sees the end',
    );
  },
);

t.test(
  'a promise from onEvent holds the event back until it settles (the meter commits before the final usage goes on)',
  async (t) => {
    const trace: string[] = [];
    const committing: EventObserver = {
      onEvent: async (event) => {
        if (label(event) !== 'usage') return;
        await Promise.resolve();
        trace.push('committed');
      },
    };
    await readAll(observe(upstream([]), committing), trace);
    t.same(trace.slice(-3), ['committed', 'reader usage', 'reader end']);
  },
);

t.test('every observer shares one usage watch that has counted the event before the observers see it', async (t) => {
  const watches: UsageWatch[] = [];
  const seenUsage: Array<number | undefined> = [];
  const first: EventObserver = { onEvent: (_event, watch) => void watches.push(watch) };
  const second: EventObserver = {
    onEvent: (event, watch) => {
      watches.push(watch);
      if (label(event) === 'usage') seenUsage.push(watch.usage?.prompt_tokens);
    },
    onEnd: (_end, watch) => void watches.push(watch),
  };
  await readAll(observe(observe(upstream([]), first), second), []);
  t.ok(
    watches.every((watch) => watch === watches[0]),
    'one watch',
  );
  t.same(seenUsage, [USAGE.prompt_tokens], 'the usage chunk was counted before the observers saw it');
  t.equal(watches[0]?.producedBytes, Buffer.byteLength('Hello world'));
});

t.test(
  'a reader that stops early (the client went away) ends the pass once: the upstream is closed, then every observer is told `stopped`',
  async (t) => {
    const trace: string[] = [];
    const ends: EventsEnd[] = [];
    const events = observe(observe(upstream(trace), tracer('meter', trace, ends)), tracer('ratelimit', trace, ends));
    for await (const event of iterate(events)) {
      trace.push(`reader ${label(event)}`);
      break;
    }
    t.same(trace.slice(0, 2), ['meter ""', 'ratelimit ""']);
    t.same(
      trace.filter((line) => line.startsWith('reader')),
      ['reader ""'],
    );
    t.same(trace.slice(-3), ['upstream closed', 'meter end stopped', 'ratelimit end stopped']);
    t.notOk(trace.includes('upstream ended'), 'the upstream was stopped, not read to its end');
    t.equal(ends.length, 2, 'each observer ended exactly once');
  },
);

t.test('events that fail end every observer with the failure, then the reader gets it', async (t) => {
  const trace: string[] = [];
  const ends: EventsEnd[] = [];
  const events = observe(observe(upstream(trace, 2), tracer('meter', trace, ends)), tracer('ratelimit', trace, ends));
  await t.rejects(readAll(events, trace), { message: 'stream cut' });
  t.same(trace.slice(-3), ['upstream closed', 'meter end failed', 'ratelimit end failed']);
  t.same(
    ends.map((end) => (end.kind === 'failed' ? (end.error as Error).message : end.kind)),
    ['stream cut', 'stream cut'],
  );
});

t.test(
  'an onEnd that throws fails the events for the observers after it and for the reader; every observer still ends',
  async (t) => {
    const trace: string[] = [];
    const ends: EventsEnd[] = [];
    const failing: EventObserver = {
      onEnd: () => {
        throw new Error('ledger write failed');
      },
    };
    const events = observe(observe(upstream([]), failing), tracer('ratelimit', trace, ends));
    await t.rejects(readAll(events, trace), { message: 'ledger write failed' });
    t.equal(ends[0]?.kind, 'failed', 'the next observer sees the failure');
    t.notOk(trace.includes('reader end'), 'the reader never sees a clean end');
  },
);

t.test(
  'an onEvent that throws fails the events: the observers after it do not see that event, and all of them end failed',
  async (t) => {
    const trace: string[] = [];
    const ends: EventsEnd[] = [];
    const failing: EventObserver = {
      onEvent: (event) => {
        if (label(event) === 'usage') throw new Error('commit failed');
      },
      onEnd: (end) => void ends.push(end),
    };
    const events = observe(observe(upstream(trace), failing), tracer('ratelimit', trace, ends));
    await t.rejects(readAll(events, trace), { message: 'commit failed' });
    t.notOk(trace.includes('ratelimit usage'));
    t.same(
      ends.map((end) => end.kind),
      ['failed', 'failed'],
    );
  },
);

t.test(
  'a plugin that changes the events between two observers starts a new pass: each observer sees the events as they leave its place',
  async (t) => {
    const trace: string[] = [];
    const inner = observe(upstream([]), tracer('inner', trace));
    const shouted = new Shouting(inner);
    const outer = observe(shouted, tracer('outer', trace));
    t.not(outer, inner);
    await readAll(outer, []);
    t.ok(trace.includes('inner "Hello"') && trace.includes('outer "HELLO"'));
    t.same(trace.slice(-2), ['inner end ended', 'outer end ended'], 'the inner pass ends first, as its wrapper would');
  },
);

t.test('an observer cannot join events already being read', async (t) => {
  const events = observe(upstream([]), {});
  const iterator = iterate(events);
  await iterator.next();
  t.throws(() => observe(events, {}), /already being read/);
  await iterator.return?.();
});
