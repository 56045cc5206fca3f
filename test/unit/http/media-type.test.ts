// Which content-types are JSON (http/media-type.ts) and which content-encodings are decoded (http/content-coding.ts).
import t from 'tap';
import { contentCodingOf } from '../../../http/content-coding.js';
import { GatewayError } from '../../../core/errors.js';
import { checkJsonMediaType } from '../../../http/media-type.js';

const refusal = (call: () => unknown): string | undefined => {
  try {
    call();
    return undefined;
  } catch (error) {
    return error instanceof GatewayError ? `${error.status} ${error.code} ${error.param}` : String(error);
  }
};

t.test(
  'JSON is application/json or application/*+json, any case and parameters; no content-type is JSON',
  async (t) => {
    for (const type of [
      undefined,
      '',
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      ' application/json ;charset=UTF-8',
      'application/vnd.api+json',
      'application/merge-patch+json',
    ]) {
      t.equal(
        refusal(() => checkJsonMediaType(type)),
        undefined,
        String(type),
      );
    }
  },
);

t.test('any other content-type is a 415 naming content-type', async (t) => {
  for (const type of [
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonp',
    'application/json-seq',
    'json',
    'text/plain+json',
  ]) {
    t.equal(
      refusal(() => checkJsonMediaType(type)),
      '415 GW_ERR_REQUEST_UNSUPPORTED_MEDIA_TYPE content-type',
      type,
    );
  }
});

t.test('gzip, x-gzip, deflate and br are decoded; none and identity need no decoding; others are a 415', async (t) => {
  t.equal(contentCodingOf(undefined), undefined);
  t.equal(contentCodingOf('identity'), undefined);
  t.equal(contentCodingOf(' GZIP '), 'gzip');
  t.equal(contentCodingOf('x-gzip'), 'x-gzip');
  t.equal(contentCodingOf('deflate'), 'deflate');
  t.equal(contentCodingOf('br'), 'br');
  for (const coding of ['zstd', 'compress', 'gzip, br', 'constructor', '__proto__']) {
    t.equal(
      refusal(() => contentCodingOf(coding)),
      '415 GW_ERR_REQUEST_UNSUPPORTED_ENCODING content-encoding',
      coding,
    );
  }
});
