// The test kit's SSE reader follows the event-stream rules, so what it reads is what a client would read.
import t from 'tap';
import { readSse, sseData, sseJson } from '../../kit/sse-reader.js';

t.test('a blank line ends a frame; the event line names it', async (t) => {
  t.same(readSse('event: a\ndata: 1\n\nevent: b\ndata: 2\n\n'), [
    { event: 'a', data: '1' },
    { event: 'b', data: '2' },
  ]);
});

t.test('a frame without an event line has a null event', async (t) => {
  t.same(readSse('data: {"x":1}\n\ndata: [DONE]\n\n'), [
    { event: null, data: '{"x":1}' },
    { event: null, data: '[DONE]' },
  ]);
});

t.test('data lines join with a newline', async (t) => {
  t.same(readSse('data: one\ndata: two\n\n'), [{ event: null, data: 'one\ntwo' }]);
});

t.test('one space after the colon is dropped, and only one', async (t) => {
  t.same(readSse('data:tight\n\ndata:  two spaces\n\n'), [
    { event: null, data: 'tight' },
    { event: null, data: ' two spaces' },
  ]);
});

t.test('lines end with CRLF, LF or CR', async (t) => {
  t.same(readSse('event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\r'), [
    { event: 'a', data: '1' },
    { event: 'b', data: '2' },
  ]);
});

t.test('comments and other fields are ignored; a frame with no data is no event', async (t) => {
  t.same(readSse(': keep-alive\n\nid: 7\nretry: 10\n\nevent: ping\n\nid: 8\ndata: x\n\n'), [
    { event: null, data: 'x' },
  ]);
});

t.test('a cut stream still shows its last frame', async (t) => {
  t.same(readSse('data: 1\n\ndata: 2'), [
    { event: null, data: '1' },
    { event: null, data: '2' },
  ]);
});

t.test('sseData gives the data of each frame, sseJson the parsed payloads without [DONE]', async (t) => {
  const text = 'data: {"n":1}\n\ndata: {"n":2}\n\ndata: [DONE]\n\n';
  t.same(sseData(text), ['{"n":1}', '{"n":2}', '[DONE]']);
  t.same(sseJson(text), [{ n: 1 }, { n: 2 }]);
});
