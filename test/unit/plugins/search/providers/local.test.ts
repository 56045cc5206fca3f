// The embedded default search provider: the local full-text index over a folder of Markdown documents.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { packageRoot } from '../../../../../config/package-root.js';
import { DEMO_CORPUS_DIR, loadCorpus } from '../../../../../plugins/search/providers/corpus.js';
import {
  createSearchProvider,
  type SearchProvider,
  type SearchQuery,
} from '../../../../../plugins/search/providers/index.js';
import { bestPassages, CONTENT_LIMIT } from '../../../../../plugins/search/providers/local.js';
import { searchProviderContract } from '../../../../kit/search-provider-contract.js';

const root = packageRoot();
let demo: SearchProvider;
t.before(async () => {
  demo = await createSearchProvider({}, { resolvePath: (path) => path });
});

const query = (text: string, fields: Partial<SearchQuery> = {}): SearchQuery => ({
  query: text,
  maxResults: 5,
  signal: new AbortController().signal,
  ...fields,
});
const urls = async (text: string, fields: Partial<SearchQuery> = {}, provider = demo): Promise<string[]> =>
  (await provider.search(query(text, fields))).map((result) => result.url);

t.test('the default provider is local, over the demo corpus', async (t) => {
  t.equal(demo.name, 'local');
  t.equal(DEMO_CORPUS_DIR, join(root, 'plugins', 'search', 'corpus'));
});

t.test('finds the obvious document first', async (t) => {
  t.equal((await urls('what is the weather in Lisbon'))[0], 'https://weather.example/forecast/lisbon');
  t.equal((await urls('spaghetti carbonara recipe'))[0], 'https://recipes.example/pasta/carbonara');
  t.equal((await urls('server-sent events'))[0], 'https://devnotes.example/http/server-sent-events');
  t.equal((await urls('Qwen3 thinking mode'))[0], 'https://wiki.openmodels.example/qwen3');
  t.equal((await urls('llama.cpp GGUF'))[0], 'https://wiki.openmodels.example/llama-cpp');
  t.equal((await urls('gateway rate limit 429'))[0], 'https://docs.gateway.example/rate-limits');
});

t.test('ranks sensibly: the other forecasts after the asked-for city, unrelated pages not at all', async (t) => {
  const weather = await urls('weather forecast Paris');
  t.equal(weather[0], 'https://weather.example/forecast/paris');
  t.ok(
    weather.slice(1).every((url) => url.startsWith('https://weather.example/') || url.includes('lisbon')),
    weather.join(' '),
  );
  t.same((await urls('Lisbon')).sort(), [
    'https://travel.example/guides/lisbon',
    'https://weather.example/forecast/lisbon',
  ]);
  t.same(await urls('zebra xylophone'), [], 'no match, no results');
  t.same(await urls('the of and'), [], 'common words alone match nothing');
});

t.test('tolerates a typo and matches word prefixes', async (t) => {
  t.equal((await urls('wether in pariss'))[0], 'https://weather.example/forecast/paris');
  t.equal((await urls('quantiz'))[0], 'https://wiki.openmodels.example/quantization');
});

t.test('returns at most maxResults', async (t) => {
  t.equal((await urls('model server', { maxResults: 2 })).length, 2);
  t.equal((await urls('model server', { maxResults: 1 })).length, 1);
  t.ok((await urls('model server', { maxResults: 10 })).length > 2);
});

t.test('applies the domain lists inside the search, so filtered searches still fill maxResults', async (t) => {
  const allowed = await urls('qwen vllm server', { allowedDomains: ['blog.openmodels.example'] });
  t.ok(allowed.length > 0);
  t.ok(allowed.every((url) => url.startsWith('https://blog.openmodels.example/')));
  const subdomains = await urls('vllm', { allowedDomains: ['openmodels.example'], maxResults: 10 });
  t.ok(
    subdomains.some((url) => url.startsWith('https://wiki.')) &&
      subdomains.some((url) => url.startsWith('https://blog.')),
  );
  const blocked = await urls('weather lisbon', { blockedDomains: ['weather.example'] });
  t.same(blocked, ['https://travel.example/guides/lisbon']);
});

t.test('a result carries the title, the document text without front matter, and the date as page age', async (t) => {
  const [result] = await demo.search(query('pancakes'));
  t.equal(result?.title, 'Fluffy pancakes');
  t.equal(result?.pageAge, 'December 8, 2024');
  t.match(result?.content, /^For 8 pancakes: 200 g flour/);
  t.notMatch(result?.content, /---|url:/);
});

t.test('a long document gives its best-matching passages, within the content limit', async (t) => {
  const filler = (n: number): string =>
    Array.from({ length: 60 }, (_, i) => `filler sentence ${n}-${i} about nothing much.`).join(' ');
  const text = [
    filler(1),
    'The harbour of Porto is famous for its wine cellars.',
    filler(2),
    filler(3),
    'Port wine ages in Porto cellars for years.',
  ].join('\n\n');
  t.ok(text.length > CONTENT_LIMIT);
  const passages = bestPassages(text, new Set(['porto', 'cellars']));
  t.ok(passages.length <= CONTENT_LIMIT);
  t.match(passages, /harbour of Porto[\s\S]*Port wine ages/, 'both matching paragraphs, in document order');
  t.equal(bestPassages('short text', new Set(['x'])), 'short text');
  const oneLong = bestPassages('word '.repeat(2000), new Set(['word']), 100);
  t.ok(oneLong.length <= 100 && oneLong.endsWith('…'));
});

t.test('the `corpus` option replaces the demo corpus, relative to the config file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'search-corpus-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'docs', 'nested'), { recursive: true });
  writeFileSync(
    join(dir, 'docs', 'a.md'),
    '---\nurl: https://intranet.example/handbook\ntitle: "Handbook: holidays"\ndate: 2024-01-31\n---\nEvery employee gets 25 days of paid holidays.\n',
  );
  writeFileSync(
    join(dir, 'docs', 'nested', 'b.md'),
    '---\nurl: https://intranet.example/canteen\ntitle: Canteen menu\n---\nMonday: lentil soup.\n',
  );
  writeFileSync(join(dir, 'docs', 'notes.txt'), 'not a document');
  const own = await createSearchProvider({ local: { corpus: 'docs' } }, { resolvePath: (path) => join(dir, path) });
  const [holidays] = await own.search(query('how many holidays'));
  t.same(holidays, {
    url: 'https://intranet.example/handbook',
    title: 'Handbook: holidays',
    content: 'Every employee gets 25 days of paid holidays.',
    pageAge: 'January 31, 2024',
  });
  t.same(await urls('lentil soup', {}, own), ['https://intranet.example/canteen'], 'subfolders are read');
  t.same(await urls('weather lisbon', {}, own), [], 'the demo corpus is not searched');
});

t.test('a bad corpus stops the start, naming the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'search-corpus-bad-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const start = (): Promise<SearchProvider> =>
    createSearchProvider({ local: { corpus: dir } }, { resolvePath: (path) => path });
  await t.rejects(start(), /no \.md documents/);
  writeFileSync(join(dir, 'x.md'), 'no front matter here');
  await t.rejects(start(), /x\.md: no front matter/);
  writeFileSync(join(dir, 'x.md'), '---\ntitle: No url\n---\ntext');
  await t.rejects(start(), /x\.md: front matter needs url/);
  writeFileSync(join(dir, 'x.md'), '---\nurl: https://a.example/\ntitle: T\ndate: last week\n---\ntext');
  await t.rejects(start(), /x\.md: front matter date: must be YYYY-MM-DD/);
  writeFileSync(join(dir, 'x.md'), '---\nurl: https://a.example/\ntitle: T\n---\ntext');
  writeFileSync(join(dir, 'y.md'), '---\nurl: https://a.example/\ntitle: U\n---\ntext');
  await t.rejects(start(), /y\.md: url https:\/\/a\.example\/ is also the url of x\.md/);
  await t.rejects(
    createSearchProvider({ local: { corpus: join(dir, 'missing') } }, { resolvePath: (path) => path }),
    /cannot read the folder/,
  );
});

t.test('every demo document loads from the source tree, on several domains', async (t) => {
  const documents = await loadCorpus(DEMO_CORPUS_DIR);
  t.equal(documents.length, readdirSync(DEMO_CORPUS_DIR).filter((file) => file.endsWith('.md')).length);
  t.ok(documents.length >= 20);
  t.ok(new Set(documents.map((document) => new URL(document.url).hostname)).size >= 5);
  t.ok(documents.every((document) => document.date !== undefined && document.text.length > 100));
});

searchProviderContract(t, {
  name: 'local',
  service: { notApplicable: 'the local index answers in-process: no HTTP, no timeout', options: {} },
  key: { notApplicable: 'the local index needs no API key' },
});
