// The providers' options: the schema the config is checked against, and the choice of provider.
import { Ajv } from 'ajv';
import t from 'tap';
import { createSearchProvider, searchProviderOptionsSchema } from '../../../../../plugins/search/providers/index.js';

const validate = new Ajv({ strict: false }).compile(searchProviderOptionsSchema);

t.test('the schema accepts each provider’s documented options', async (t) => {
  for (const options of [
    {},
    { provider: 'local', local: { corpus: './my-docs' } },
    { provider: 'searxng', timeout_ms: 5000, searxng: { url: 'http://127.0.0.1:8888', language: 'en-US' } },
    { provider: 'brave', brave: { api_key_env: 'BRAVE_API_KEY', extra_snippets: true } },
    {
      provider: 'tavily',
      tavily: { url: 'https://api.tavily.com', api_key_env: 'TAVILY_API_KEY', search_depth: 'advanced' },
    },
  ]) {
    t.ok(validate(options), JSON.stringify(options));
  }
});

t.test('the schema refuses unknown providers, keys and bad values', async (t) => {
  for (const options of [
    { provider: 'google' },
    { provider: 'local', corpus: './docs' },
    { searxng: {} },
    { searxng: { url: 'not a url' } },
    { brave: { api_key: 'sk-inline-keys-are-not-accepted' } },
    { brave: { api_key_env: 'NOT-A-VARIABLE' } },
    { tavily: { search_depth: 'deep' } },
    { timeout_ms: 0 },
  ]) {
    t.notOk(validate(options), JSON.stringify(options));
  }
});

t.test('provider picks the adapter', async (t) => {
  const context = { resolvePath: (path: string) => path, env: { BRAVE_API_KEY: 'b', TAVILY_API_KEY: 't' } };
  t.equal((await createSearchProvider({}, context)).name, 'local');
  t.equal(
    (await createSearchProvider({ provider: 'searxng', searxng: { url: 'http://127.0.0.1:1' } }, context)).name,
    'searxng',
  );
  t.equal((await createSearchProvider({ provider: 'brave' }, context)).name, 'brave');
  t.equal((await createSearchProvider({ provider: 'tavily' }, context)).name, 'tavily');
});
