// An upstream stream as the events of the answer the client asked for (proxy/upstream/answer-decoder.ts):
// chunks as they come, or one completion gathered from them; at a stop string matched in the gateway it stops.
import t from 'tap';
import type { ChatUsage, ResponseEvent } from '../../../../core/canonical.js';
import { GatewayError } from '../../../../core/errors.js';
import { AnswerDecoder } from '../../../../proxy/upstream/answer-decoder.js';
import { StopMatcher } from '../../../../proxy/upstream/stop-matcher.js';
import { chunk, textStream, USAGE } from '../../../fixtures/chunks.js';

/** The fixture's chunks as the SSE bytes an upstream sends, each with a running usage. */
function sse(events = textStream): Buffer {
  const text = events
    .map((event, i) => {
      const running = { prompt_tokens: 12, completion_tokens: i, total_tokens: 12 + i };
      const body = event.chunk.usage ? event.chunk : { ...event.chunk, usage: running };
      return `data: ${JSON.stringify(body)}\n\n`;
    })
    .join('');
  return Buffer.from(text + 'data: [DONE]\n\n');
}

function decode(decoder: AnswerDecoder, bytes: Buffer): ResponseEvent[] {
  const events: ResponseEvent[] = [];
  const emit = (event: ResponseEvent): void => void events.push(event);
  decoder.push(bytes, emit);
  if (decoder.stopped()) decoder.finish(emit);
  else decoder.end(emit);
  return events;
}

t.test('a stream gathered whole is one completion: its text, finish and final usage', async (t) => {
  const running: ChatUsage[] = [];
  const events = decode(
    new AnswerDecoder({
      maxEventBytes: 1 << 16,
      see: () => {},
      whole: { maxBytes: 1 << 20, running: (usage) => void running.push(usage) },
    }),
    sse(),
  );
  t.equal(events.length, 1);
  t.match(events[0], {
    type: 'completion',
    completion: {
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello world' }, finish_reason: 'stop' }],
      usage: USAGE,
    },
  });
  t.same(
    running.map((usage) => usage.completion_tokens),
    [0, 1, 2, 3],
    'each usage on the way, the running ones and the final one',
  );
});

t.test('a streamed request gets the chunks as they come', async (t) => {
  const events = decode(new AnswerDecoder({ maxEventBytes: 1 << 16, see: () => {} }), sse());
  t.same(
    events.map((event) => event.type),
    ['chunk', 'chunk', 'chunk', 'chunk'],
  );
});

t.test('a gathered answer longer than max_body_bytes is refused, 502 upstream_bad_response', async (t) => {
  const decoder = new AnswerDecoder({
    maxEventBytes: 1 << 16,
    see: () => {},
    whole: { maxBytes: 8, running: () => {} },
  });
  t.throws(
    () => decoder.push(sse(), () => {}),
    new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', "The model server's answer exceeds 8 bytes."),
  );
});

t.test('at a stop string the decoder stops: the answer is whole, cut before it', async (t) => {
  const decoder = new AnswerDecoder({
    maxEventBytes: 1 << 16,
    see: () => {},
    stops: new StopMatcher(['lo w'], 1),
    whole: { maxBytes: 1 << 20, running: () => {} },
  });
  const events = decode(
    decoder,
    sse([chunk([{ index: 0, delta: { content: 'Hel' } }]), chunk([{ index: 0, delta: { content: 'lo world' } }])]),
  );
  t.ok(decoder.stopped(), 'the upstream call can be aborted');
  t.ok(decoder.complete());
  t.match(events, [
    {
      type: 'completion',
      completion: { choices: [{ message: { content: 'Hel' }, finish_reason: 'stop', stop_reason: 'lo w' }] },
    },
  ]);
});
