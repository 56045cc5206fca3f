// Mutations of the body's bytes: truncated JSON, invalid UTF-8 inside strings and between tokens, a byte
// order mark, trailing garbage, and whole bodies that are empty, not objects or not JSON at all.
import type { Draft, Mutation } from '../fuzz-case.js';
import { locations, raw, replaceAt, toText, valueAt } from '../json-tree.js';
import type { Prng } from '../prng.js';

/** Byte sequences that are not UTF-8: stray bytes, overlong forms, surrogates, code points past U+10FFFF, cut sequences. */
const INVALID_UTF8: readonly number[][] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xc0, 0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc3, 0x28],
];

/** The body's bytes as they stand (the tree serialized, unless a byte mutation already ran). */
export function bodyBytes(draft: Draft): Buffer {
  return draft.bytes ?? Buffer.from(toText(draft.tree), 'utf8');
}

export const truncated: Mutation = {
  name: 'truncated',
  stage: 'bytes',
  weight: 6,
  apply(draft, rng) {
    const bytes = bodyBytes(draft);
    if (bytes.length < 2) return undefined;
    const cut = rng.int(1, bytes.length - 1);
    draft.bytes = bytes.subarray(0, cut);
    return `${cut} of ${bytes.length} bytes`;
  },
};

const MARK = 'FUZZ-INVALID-UTF8-MARK';

export const invalidUtf8: Mutation = {
  name: 'invalid-utf8',
  stage: 'bytes',
  weight: 6,
  apply(draft, rng) {
    const sequence = Buffer.from(rng.pick(INVALID_UTF8));
    const hex = sequence.toString('hex');
    const strings =
      draft.bytes === undefined ? locations(draft.tree).filter((place) => typeof valueAt(place) === 'string') : [];
    if (strings.length > 0 && rng.chance(0.75)) {
      // Inside a string value: the body is still JSON, but not UTF-8.
      const location = rng.pick(strings);
      const text = valueAt(location) as string;
      const at = rng.int(0, text.length);
      replaceAt(location, raw(JSON.stringify(text.slice(0, at) + MARK + text.slice(at))));
      const bytes = bodyBytes(draft);
      const index = bytes.indexOf(MARK);
      draft.bytes = Buffer.concat([bytes.subarray(0, index), sequence, bytes.subarray(index + MARK.length)]);
      return `${hex} in ${location.path}`;
    }
    const bytes = bodyBytes(draft);
    const at = rng.int(0, bytes.length);
    draft.bytes = Buffer.concat([bytes.subarray(0, at), sequence, bytes.subarray(at)]);
    return `${hex} at byte ${at}`;
  },
};

function randomBytes(rng: Prng, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = rng.int(0, 255);
  return bytes;
}

const WHOLE_BODIES: readonly string[] = [
  '',
  ' ',
  '\r\n',
  'null',
  'true',
  '0',
  '1E400',
  '"qwen3-8b"',
  '[]',
  '[{}]',
  '{}',
  '{"model":null}',
  '{',
  '}',
  '{"model":"qwen3-8b",}',
  "{'model':'qwen3-8b'}",
  '{"a":1}{"b":2}',
  'undefined',
  'NaN',
  '{"model":"qwen3-8b","messages":[{"role":"user","content":"hi"}]}\u0000',
  'model=qwen3-8b&messages=hi',
  '<?xml version="1.0"?><request/>',
  '--fuzz\r\nContent-Disposition: form-data; name="model"\r\n\r\nqwen3-8b\r\n--fuzz--',
];

export const wholeBody: Mutation = {
  name: 'whole-body',
  stage: 'bytes',
  weight: 5,
  apply(draft, rng) {
    if (rng.chance(0.25)) {
      const length = rng.logInt(1, 4096);
      draft.bytes = randomBytes(rng, length);
      return `${length} random bytes`;
    }
    const text = rng.pick(WHOLE_BODIES);
    draft.bytes = Buffer.from(text, 'utf8');
    return JSON.stringify(text.slice(0, 40));
  },
};

export const byteOrderMark: Mutation = {
  name: 'bom',
  stage: 'bytes',
  weight: 1,
  apply(draft) {
    draft.bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bodyBytes(draft)]);
    return 'EF BB BF first';
  },
};

export const trailingGarbage: Mutation = {
  name: 'trailing-garbage',
  stage: 'bytes',
  weight: 2,
  apply(draft, rng) {
    const tail = rng.pick(['x', ' {}', '\u0000', ',', ']', '{"model":"other"}']);
    draft.bytes = Buffer.concat([bodyBytes(draft), Buffer.from(tail, 'utf8')]);
    return JSON.stringify(tail);
  },
};
