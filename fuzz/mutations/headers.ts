// Mutations of the request line's companions: content types that are not JSON (and JSON ones written
// oddly), chunked bodies, the wire-profile header, and a header block past Node's 16 KB.
import type { Mutation } from '../fuzz-case.js';

/** Types that are plainly not JSON: a 2xx for any of them means the body was read as JSON anyway. */
export const NOT_JSON_TYPES: readonly string[] = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/xml',
  'application/octet-stream',
  'text/html',
];

/** JSON written oddly, or types a server may read either way: no verdict on these. */
const OTHER_TYPES: readonly string[] = [
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/jsonp',
  'application/json; charset=latin1',
  '*/*',
  '',
];

export const contentType: Mutation = {
  name: 'content-type',
  stage: 'headers',
  weight: 6,
  apply(draft, rng) {
    if (rng.chance(0.15)) {
      delete draft.headers['content-type'];
      return 'none';
    }
    const value = rng.chance(0.6) ? rng.pick(NOT_JSON_TYPES) : rng.pick(OTHER_TYPES);
    draft.headers['content-type'] = value;
    return JSON.stringify(value);
  },
};

export const chunked: Mutation = {
  name: 'chunked',
  stage: 'headers',
  weight: 4,
  apply(draft) {
    draft.chunked = true;
    return 'transfer-encoding: chunked';
  },
};

export const wireProfile: Mutation = {
  name: 'wire',
  stage: 'headers',
  weight: 4,
  apply(draft, rng) {
    const value = rng.pick(['openai', 'openai', 'spec', 'OPENAI', 'bogus', '']);
    draft.headers['x-gateway-wire'] = value;
    return JSON.stringify(value);
  },
};

export const headerFlood: Mutation = {
  name: 'header-flood',
  stage: 'headers',
  weight: 0.5,
  apply(draft, rng) {
    const size = rng.int(17 * 1024, 40 * 1024);
    draft.headers['x-fuzz-padding'] = 'a'.repeat(size);
    return `${size} bytes of one header`;
  },
};
