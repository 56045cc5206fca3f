// What the fuzzer knows about a request it built, independently of the gateway: whether it carries a valid
// key, whether its content type is plainly not JSON, whether its body (decoded as its content-encoding
// says) is JSON and UTF-8, whether it is over the body limit. The oracle judges answers against these.
import { gunzipSync } from 'node:zlib';
import type { Credentials, FuzzCase } from './fuzz-case.js';
import { carriesValidKey, keyCameByBearer } from './keys.js';
import { NOT_JSON_TYPES } from './mutations/headers.js';

export interface CaseFacts {
  validKey: boolean;
  /** The only key header is `Authorization: Bearer`. */
  bearerOnly: boolean;
  notJsonType: boolean;
  /** A content-encoding other than identity whose bytes do not decode as it says. */
  undecodable: boolean;
  /** The body the gateway should read (decoded, when gzip and gzip it is). */
  body: 'json' | 'json-not-utf8' | 'not-json';
  /** The bytes sent, as sent, are not JSON text (what a 400 may echo). */
  sentBytesNotJson: boolean;
  /** Sent or inflated, the body is over the limit. */
  overLimit: boolean;
  wire: 'spec' | 'openai' | 'invalid';
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const BOM = /^\uFEFF/;

export function factsOf(fuzzCase: FuzzCase, credentials: Credentials, bodyLimitBytes: number): CaseFacts {
  const { headers, body } = fuzzCase;
  const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let decoded: Buffer | undefined = body;
  let undecodable = false;
  let inflatesPastLimit = false;
  if (encoding === 'gzip') {
    try {
      decoded = gunzipSync(body, { maxOutputLength: bodyLimitBytes + 1 });
    } catch (error) {
      decoded = undefined;
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') inflatesPastLimit = true;
      else undecodable = true;
    }
  } else if (encoding !== 'identity') {
    // The fuzzer sends only gzip bytes as encoded: any other encoding it names is a lie about plain bytes.
    decoded = undefined;
    undecodable = true;
  }
  const mediaType = (headers['content-type'] ?? '').toLowerCase();
  const wireHeader = headers['x-gateway-wire'];
  return {
    validKey: carriesValidKey(headers, credentials),
    bearerOnly: keyCameByBearer(headers),
    notJsonType: NOT_JSON_TYPES.some((type) => type.toLowerCase() === mediaType),
    undecodable,
    body: decoded === undefined ? 'not-json' : jsonKind(decoded),
    sentBytesNotJson: jsonKind(body) === 'not-json',
    overLimit: body.length > bodyLimitBytes || inflatesPastLimit,
    wire: wireHeader === undefined || wireHeader === 'spec' ? 'spec' : wireHeader === 'openai' ? 'openai' : 'invalid',
  };
}

function jsonKind(bytes: Buffer): CaseFacts['body'] {
  let text: string;
  let utf8 = true;
  try {
    text = UTF8.decode(bytes);
  } catch {
    text = bytes.toString('utf8');
    utf8 = false;
  }
  try {
    JSON.parse(text.replace(BOM, ''));
  } catch {
    return 'not-json';
  }
  return utf8 ? 'json' : 'json-not-utf8';
}
