import t from 'tap';
import { Router } from '../../../../proxy/routing/router.js';
import type { Dialect, ErrorRenderer } from '../../../../core/dialect.js';
import type { ApiFamily, DialectRoute, ResourceRoute } from '../../../../core/route.js';

/** A dialect with its routes and an error shape that names it ('chat' for responses: its errors are chat's, spec §7). */
const dialect = (name: string, family: ApiFamily, routes: DialectRoute[], shape = name): Dialect =>
  ({ name, family, routes, renderError: () => ({ status: 0, body: { name: shape } }) }) as unknown as Dialect;
const chat = dialect('chat', 'openai', [{ method: 'POST', path: '/v1/chat/completions', kind: 'generate' }]);
const messages = dialect('messages', 'anthropic', [
  { method: 'POST', path: '/v1/messages', kind: 'generate' },
  { method: 'POST', path: '/v1/messages/count_tokens', kind: 'count_tokens' },
]);
const responses = dialect('responses', 'openai', [{ method: 'POST', path: '/v1/responses', kind: 'generate' }], 'chat');
const router = new Router([chat, messages, responses], chat);
const errorShape = (renderer: ErrorRenderer): unknown => renderer.renderError({} as never).body.name;

t.test('the spec endpoints route to their kind and dialect, as the dialects declare them', async (t) => {
  const match = router.match('POST', '/v1/chat/completions');
  t.ok(match.found && match.route.kind === 'generate' && match.route.dialect === chat);
  const models = router.match('GET', '/v1/models');
  t.ok(models.found && models.route.kind === 'models');
});

t.test('a query string is ignored (the Anthropic SDK sends ?beta=true)', async (t) => {
  const match = router.match('POST', '/v1/messages?beta=true');
  t.ok(match.found && match.route.kind === 'generate' && match.route.dialect === messages);
});

t.test('responses errors use the chat shape; message routes use the message shape (spec section 7)', async (t) => {
  const responses = router.match('POST', '/v1/responses');
  const count = router.match('POST', '/v1/messages/count_tokens');
  t.equal(responses.found && errorShape(responses.route.errors), 'chat');
  t.equal(count.found && errorShape(count.route.errors), 'messages');
});

t.test(
  'an unknown path is not found, in the message shape under /v1/messages and the chat shape elsewhere',
  async (t) => {
    const underMessages = router.match('POST', '/v1/messages/batches');
    t.ok(!underMessages.found && underMessages.reason === 'path' && errorShape(underMessages.errors) === 'messages');
    const elsewhere = router.match('GET', '/v2/x');
    t.ok(!elsewhere.found && errorShape(elsewhere.errors) === 'chat');
  },
);

t.test('a known path with the wrong method is told apart from an unknown path', async (t) => {
  const match = router.match('GET', '/v1/chat/completions');
  t.ok(!match.found && match.reason === 'method');
});

t.test('GET /v1/models/{id} names the model by the rest of the path, percent-decoded', async (t) => {
  const cases: Array<[url: string, id: string]> = [
    ['/v1/models/qwen3-8b', 'qwen3-8b'],
    ['/v1/models/Qwen%2FQwen3-8B', 'Qwen/Qwen3-8B'],
    ['/v1/models/Qwen/Qwen3-8B?beta=true', 'Qwen/Qwen3-8B'],
    ['/v1/models/bad%E0%A4%A', 'bad%E0%A4%A'],
  ];
  for (const [url, id] of cases) {
    const match = router.match('GET', url);
    t.ok(match.found && match.route.kind === 'model' && match.route.path === '/v1/models/{id}', url);
    t.equal(match.found && match.pathId, id, url);
  }
  t.ok(!router.match('GET', '/v1/models/').found, 'no id: no such endpoint');
  const post = router.match('POST', '/v1/models/qwen3-8b');
  t.ok(!post.found && post.reason === 'method');
});

t.test(
  "GET /v1/models/{id} errors in the caller's shape: Anthropic's for anthropic-version or x-api-key",
  async (t) => {
    const shapeFor = (headers: Record<string, string>): unknown => {
      const match = router.match('GET', '/v1/models/x', headers);
      return match.found && errorShape(match.route.errors);
    };
    t.equal(shapeFor({}), 'chat');
    t.equal(shapeFor({ authorization: 'Bearer k' }), 'chat');
    t.equal(shapeFor({ 'anthropic-version': '2023-06-01' }), 'messages');
    t.equal(shapeFor({ 'x-api-key': 'k' }), 'messages');
  },
);

t.test('the router names no dialect: a route a dialect declares is served, with its error shape', async (t) => {
  const embeddings = dialect('embeddings', 'openai', [{ method: 'POST', path: '/v1/embeddings', kind: 'generate' }]);
  const withIt = new Router([chat, embeddings], chat);
  const match = withIt.match('POST', '/v1/embeddings');
  t.ok(match.found && match.route.dialect === embeddings && errorShape(match.route.errors) === 'embeddings');
  const under = withIt.match('GET', '/v1/embeddings/x');
  t.ok(!under.found && errorShape(under.errors) === 'embeddings', 'an unknown path under it too');
  t.notOk(withIt.match('POST', '/v1/messages').found, 'a dialect not given serves nothing');
});

/** Routes of an API served beside the generations (the batch APIs), with `{id}` segments. */
const resources: ResourceRoute[] = [
  { method: 'POST', path: '/v1/files', operation: 'files.create', family: 'openai' },
  { method: 'GET', path: '/v1/files/{id}', operation: 'files.retrieve', family: 'openai' },
  { method: 'DELETE', path: '/v1/files/{id}', operation: 'files.delete', family: 'openai' },
  { method: 'GET', path: '/v1/files/{id}/content', operation: 'files.content', family: 'openai' },
  { method: 'GET', path: '/v1/messages/batches/{id}/results', operation: 'results', family: 'anthropic' },
];
const withResources = new Router([chat, messages, responses], chat, resources);

t.test('a resource route with {id} matches one segment and gives it as pathId', async (t) => {
  const content = withResources.match('GET', '/v1/files/abc/content?x=1');
  t.ok(content.found && content.route.kind === 'resource' && content.route.operation === 'files.content');
  t.equal(content.found && content.pathId, 'abc');
  const retrieve = withResources.match('GET', '/v1/files/abc');
  t.ok(retrieve.found && retrieve.route.operation === 'files.retrieve' && retrieve.pathId === 'abc');
  const create = withResources.match('POST', '/v1/files');
  t.ok(create.found && create.route.operation === 'files.create' && create.pathId === '', 'a path without {id}');
  t.notOk(withResources.match('GET', '/v1/files/abc/content/more').found, 'not more segments');
});

t.test('a resource path with the wrong method is told apart from an unknown path', async (t) => {
  const wrong = withResources.match('POST', '/v1/files/abc');
  t.ok(!wrong.found && wrong.reason === 'method');
  t.ok(withResources.match('DELETE', '/v1/files/abc').found, 'the same pattern, another method');
  const unknown = withResources.match('GET', '/v1/files/abc/other');
  t.ok(!unknown.found && unknown.reason === 'path');
});

t.test('an empty {id} segment matches no resource route', async (t) => {
  for (const url of ['/v1/files//content', '/v1/files/']) {
    const match = withResources.match('GET', url);
    t.ok(!match.found && match.reason === 'path', url);
  }
});

t.test('a percent-encoded {id} is decoded; a malformed escape is left as sent', async (t) => {
  const encoded = withResources.match('GET', '/v1/files/file%2Dabc%20x/content');
  t.equal(encoded.found && encoded.pathId, 'file-abc x');
  const malformed = withResources.match('GET', '/v1/files/bad%E0%A4%A/content');
  t.equal(malformed.found && malformed.pathId, 'bad%E0%A4%A');
});

t.test("a resource route's errors are its family's dialect's, found or not", async (t) => {
  const files = withResources.match('GET', '/v1/files/abc/content');
  t.equal(files.found && errorShape(files.route.errors), 'chat');
  const results = withResources.match('GET', '/v1/messages/batches/msgbatch_1/results');
  t.ok(results.found && results.route.dialect === messages && results.pathId === 'msgbatch_1');
  t.equal(results.found && errorShape(results.route.errors), 'messages');
  const wrongMethod = withResources.match('POST', '/v1/messages/batches/msgbatch_1/results');
  t.ok(!wrongMethod.found && errorShape(wrongMethod.errors) === 'messages', 'a wrong method in the same shape');
});
