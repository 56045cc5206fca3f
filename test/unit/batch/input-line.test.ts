// What a batch's line must be before the batch is accepted (batch/input-line.ts): every refusal is a 400 that
// names the line and the field; the body a stored line runs with.
import t from 'tap';
import { checkAnthropicRequest, checkOpenAiLine, lineBody, type LineChecks } from '../../../batch/input-line.js';
import { GatewayError } from '../../../core/errors.js';

const SERVED = 'served-model';
const newChecks = (): LineChecks => ({ seen: new Set(), servesModel: (model) => model === SERVED });

const openAiLine = (fields: Record<string, unknown> = {}): string =>
  JSON.stringify({
    custom_id: 'req-1',
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: SERVED, messages: [{ role: 'user', content: 'hi' }] },
    ...fields,
  });

/** A 400 of the file naming line 7 and, in its message, `words`. */
const refusal = (...words: string[]) => ({
  name: 'GatewayError',
  code: 'GW_ERR_REQUEST_INVALID',
  status: 400,
  param: 'file',
  message: new RegExp(`^${['line 7 of the file', ...words].map(escape).join('.*')}`),
});
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const checkLine =
  (text: string, endpoint?: string, checks = newChecks()) =>
  () =>
    checkOpenAiLine(text, 7, checks, endpoint);

t.test('an OpenAI line that passes gives its custom id, url and model', async (t) => {
  t.same(checkOpenAiLine(openAiLine(), 1, newChecks(), '/v1/chat/completions'), {
    customId: 'req-1',
    url: '/v1/chat/completions',
    model: SERVED,
  });
  t.same(checkOpenAiLine(openAiLine({ url: '/v1/responses' }), 1, newChecks(), undefined).url, '/v1/responses');
});

t.test('a line that is not JSON is refused, naming the line', async (t) => {
  t.throws(checkLine('{"custom_id": '), refusal('is not valid JSON'));
});

t.test('a line that is not a JSON object is refused, naming the line', async (t) => {
  for (const text of ['[]', '"text"', '12', 'null']) t.throws(checkLine(text), refusal('is not a JSON object'), text);
});

t.test('custom_id missing, empty, not a string or over 512 characters is refused', async (t) => {
  for (const customId of [undefined, '', 12, 'x'.repeat(513)])
    t.throws(checkLine(openAiLine({ custom_id: customId })), refusal('custom_id', '1 to 512'), String(customId));
  t.doesNotThrow(checkLine(openAiLine({ custom_id: 'x'.repeat(512) })), '512 characters is a custom id');
});

t.test('a custom_id seen before in the file is refused, quoted', async (t) => {
  const checks = newChecks();
  checkOpenAiLine(openAiLine(), 6, checks, undefined);
  t.throws(checkLine(openAiLine(), undefined, checks), refusal('custom_id', 'unique', "'req-1'"));
});

t.test('a method other than POST is refused', async (t) => {
  for (const method of ['GET', 'post', undefined])
    t.throws(checkLine(openAiLine({ method })), refusal('method', "'POST'"), String(method));
});

t.test('a url that is not a batch endpoint is refused, listing the endpoints', async (t) => {
  for (const url of ['/v1/embeddings', '/v1/chat/completions/', 42, undefined])
    t.throws(checkLine(openAiLine({ url })), refusal('url', '/v1/chat/completions, /v1/responses'), String(url));
});

t.test("a url other than the batch's endpoint is refused, naming both", async (t) => {
  t.throws(
    checkLine(openAiLine({ url: '/v1/responses' }), '/v1/chat/completions'),
    refusal('url', "the batch's endpoint /v1/chat/completions", 'it is /v1/responses'),
  );
});

t.test('a body that is not a JSON object is refused', async (t) => {
  for (const body of [undefined, null, [], 'text'])
    t.throws(checkLine(openAiLine({ body })), refusal('body must be a JSON object'), String(body));
});

t.test('a body without a model is refused, naming body.model', async (t) => {
  for (const model of [undefined, '', 3])
    t.throws(checkLine(openAiLine({ body: { model } })), refusal('body.model must be a string'), String(model));
});

t.test('a model the gateway does not serve is refused, naming body.model and the model', async (t) => {
  t.throws(checkLine(openAiLine({ body: { model: 'other\u0000' } })), refusal('body.model', "'other\\u0000' is not"));
});

/** An Anthropic refusal: a 400 whose param is `param` and whose message starts with it. */
const requestRefusal = (param: string, words: string) => ({
  code: 'GW_ERR_REQUEST_INVALID',
  status: 400,
  param,
  message: new RegExp(`^${escape(param)}.*${escape(words)}`),
});
const anthropicRequest = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  custom_id: 'req_1',
  params: { model: SERVED, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
  ...fields,
});
const checkRequest =
  (request: unknown, checks = newChecks()) =>
  () =>
    checkAnthropicRequest(request, 3, checks);

t.test('an Anthropic request that passes gives its custom id and model', async (t) => {
  t.same(checkAnthropicRequest(anthropicRequest(), 0, newChecks()), { customId: 'req_1', model: SERVED });
});

t.test('an Anthropic request that is not an object is refused, naming requests[i]', async (t) => {
  for (const request of [null, [], 'text']) t.throws(checkRequest(request), requestRefusal('requests[3]', 'an object'));
});

t.test("an Anthropic custom_id must be 1 to 64 letters, digits, '-' or '_'", async (t) => {
  for (const customId of [undefined, '', 'a b', 'é', 'x'.repeat(65), 5])
    t.throws(
      checkRequest(anthropicRequest({ custom_id: customId })),
      requestRefusal('requests[3].custom_id', '1 to 64'),
      String(customId),
    );
  t.doesNotThrow(checkRequest(anthropicRequest({ custom_id: `A-z_9${'x'.repeat(59)}` })), '64 characters');
});

t.test('an Anthropic custom_id seen before in the batch is refused', async (t) => {
  const checks = newChecks();
  checkAnthropicRequest(anthropicRequest(), 2, checks);
  t.throws(
    checkRequest(anthropicRequest(), checks),
    requestRefusal('requests[3].custom_id', "unique in the batch ('req_1'"),
  );
});

t.test('Anthropic params that are not an object are refused, naming requests[i].params', async (t) => {
  for (const params of [undefined, null, [], 'text'])
    t.throws(
      checkRequest(anthropicRequest({ params })),
      requestRefusal('requests[3].params', 'must be an object'),
      String(params),
    );
});

t.test('an Anthropic model missing or not served is refused, naming requests[i].params.model', async (t) => {
  t.throws(
    checkRequest(anthropicRequest({ params: { max_tokens: 1 } })),
    requestRefusal('requests[3].params.model', 'must be a string'),
  );
  t.throws(
    checkRequest(anthropicRequest({ params: { model: 'other' } })),
    requestRefusal('requests[3].params.model', "serves no model 'other'"),
  );
});

t.test('every refusal is a GatewayError, never a plain error (a 400, not a 500)', async (t) => {
  for (const text of ['', '{', openAiLine({ body: 1 })]) t.throws(checkLine(text), GatewayError, JSON.stringify(text));
  t.throws(checkRequest(undefined), GatewayError);
});

t.test("lineBody is an OpenAI line's body or an Anthropic request's params, without stream", async (t) => {
  const body = { model: SERVED, stream: true, messages: [] };
  t.same(lineBody(openAiLine({ body })), { model: SERVED, messages: [] });
  t.same(lineBody(JSON.stringify(anthropicRequest({ params: { ...body, max_tokens: 5 } }))), {
    model: SERVED,
    messages: [],
    max_tokens: 5,
  });
  t.same(lineBody(openAiLine({ body: { model: SERVED, stream: false } })), { model: SERVED });
});
