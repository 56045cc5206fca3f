// The lines of a JSONL byte stream with their byte offsets and lengths (batch/jsonl-lines.ts): what a batch reads
// a line back by, from storage alone, so every offset and length must be exact in bytes, however the stream is cut.
import t from 'tap';
import { JsonlSplitter, jsonlLines, type JsonlLine } from '../../../batch/jsonl-lines.js';

const LIMIT = 1 << 20;
const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

/** The lines of `chunks` pushed one by one, then the stream's end. */
const split = (chunks: readonly Uint8Array[], limit = LIMIT): JsonlLine[] => {
  const splitter = new JsonlSplitter(limit);
  const lines = chunks.flatMap((chunk) => splitter.push(chunk));
  const last = splitter.end();
  return last === undefined ? lines : [...lines, last];
};
/** `whole` cut at these byte positions. */
const cut = (whole: Buffer, at: readonly number[]): Buffer[] =>
  [0, ...at].map((from, index) => whole.subarray(from, [...at, whole.length][index]));
/** Each line's bytes, read back from the whole stream by its offset and length. */
const readBack = (whole: Buffer, lines: readonly JsonlLine[]): string[] =>
  lines.map((line) => whole.subarray(line.offset, line.offset + line.length).toString('utf8'));

t.test('offsets and lengths count bytes, not characters (multi-byte UTF-8)', async (t) => {
  const whole = bytes('{"a":"é"}\n{"b":"日本"}\n{"c":"🙂"}\n');
  t.same(split([whole]), [
    { number: 1, offset: 0, length: 10, text: '{"a":"é"}' },
    { number: 2, offset: 11, length: 14, text: '{"b":"日本"}' },
    { number: 3, offset: 26, length: 12, text: '{"c":"🙂"}' },
  ]);
});

t.test('a line split across chunks, even inside a multi-byte character, is one line', async (t) => {
  const whole = bytes('{"x":1}\n{"y":"日本"}\n');
  const inCharacter = whole.indexOf(bytes('本')) + 1;
  t.same(split(cut(whole, [3, inCharacter])), [
    { number: 1, offset: 0, length: 7, text: '{"x":1}' },
    { number: 2, offset: 8, length: 14, text: '{"y":"日本"}' },
  ]);
});

t.test('a chunk boundary right before or after the line break moves nothing', async (t) => {
  const whole = bytes('{"x":1}\n{"y":2}\n');
  const expected = [
    { number: 1, offset: 0, length: 7, text: '{"x":1}' },
    { number: 2, offset: 8, length: 7, text: '{"y":2}' },
  ];
  t.same(split(cut(whole, [7])), expected, 'the break starts a chunk');
  t.same(split(cut(whole, [8])), expected, 'the break ends a chunk');
  t.same(split(cut(whole, [7, 8])), expected, 'the break is a chunk of its own');
});

t.test('a \\r before the break belongs to no line, also when the break is in the next chunk', async (t) => {
  const whole = bytes('{"x":1}\r\n{"y":2}\r\n');
  const expected = [
    { number: 1, offset: 0, length: 7, text: '{"x":1}' },
    { number: 2, offset: 9, length: 7, text: '{"y":2}' },
  ];
  t.same(split([whole]), expected);
  t.same(split(cut(whole, [8])), expected, 'cut between \\r and \\n');
});

t.test('blank lines are skipped but counted in the line numbers', async (t) => {
  const whole = bytes('\n{"x":1}\n\n  \t\n\r\n{"y":2}\n\n');
  t.same(split([whole]), [
    { number: 2, offset: 1, length: 7, text: '{"x":1}' },
    { number: 6, offset: 16, length: 7, text: '{"y":2}' },
  ]);
});

t.test('a last line without a break is a line', async (t) => {
  const whole = bytes('{"x":1}\n{"y":"é"}');
  t.same(split(cut(whole, [10])), [
    { number: 1, offset: 0, length: 7, text: '{"x":1}' },
    { number: 2, offset: 8, length: 10, text: '{"y":"é"}' },
  ]);
  t.equal(new JsonlSplitter(LIMIT).end(), undefined, 'an empty stream has none');
});

t.test('a line longer than the limit throws a RangeError naming it; one of exactly the limit is a line', async (t) => {
  t.throws(() => split([bytes('{}\n\n{"x":12}\n')], 7), new RangeError('line 3 is longer than 7 bytes'));
  t.throws(
    () => split([bytes('{"x":1'), bytes('2}')], 7),
    new RangeError('line 1 is longer than 7 bytes'),
    'held over chunks',
  );
  t.throws(() => split([bytes('{"x":12}')], 7), RangeError, 'the last line, without a break');
  t.same(
    split([bytes('{"x":1}\n{"y":2}\r\n{"z":3}')], 7).map((line) => line.text),
    ['{"x":1}', '{"y":2}', '{"z":3}'],
    'the \\r of a \\r\\n is not part of the line',
  );
});

t.test('jsonlLines reads a whole stream: the same lines as the splitter, the last one too', async (t) => {
  const whole = bytes('{"x":1}\r\n\n{"y":"日本"}');
  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield* cut(whole, [5, 12]);
  }
  const lines: JsonlLine[] = [];
  for await (const line of jsonlLines(chunks(), LIMIT)) lines.push(line);
  t.same(lines, split([whole]));
  t.equal(lines.length, 2);
  const tooLong = async (): Promise<void> => {
    for await (const _line of jsonlLines(chunks(), 8));
  };
  await t.rejects(tooLong(), new RangeError('line 3 is longer than 8 bytes'));
});

t.test(
  'property: however the stream is cut in up to three chunks, reading back offset and length gives each line',
  async (t) => {
    const whole = bytes('{"a":"é"}\r\n\n{"b":"日本🙂"}\n \n{"c":3}\r\n{"d":"ü"}');
    const texts = ['{"a":"é"}', '{"b":"日本🙂"}', '{"c":3}', '{"d":"ü"}'];
    let cuts = 0;
    for (let first = 0; first <= whole.length; first++)
      for (let second = first; second <= whole.length; second++) {
        const lines = split(cut(whole, [first, second]));
        cuts++;
        if (
          JSON.stringify(lines.map((line) => line.text)) !== JSON.stringify(texts) ||
          JSON.stringify(readBack(whole, lines)) !== JSON.stringify(texts)
        )
          t.fail(`cut at ${first} and ${second}: ${JSON.stringify(lines)}`);
      }
    t.pass(`${cuts} ways to cut the stream`);
    t.same(readBack(whole, split(cut(whole, [...whole.keys()].slice(1)))), texts, 'a byte a chunk');
  },
);
