// The domain filter the search plugin applies to every provider's results.
import t from 'tap';
import { domainFilter, matchesDomains } from '../../../../../plugins/search/providers/index.js';

t.test('an allowed domain covers its host and every subdomain, not look-alikes', async (t) => {
  t.ok(matchesDomains('https://example.com/a', ['example.com']));
  t.ok(matchesDomains('https://docs.example.com/a', ['example.com']));
  t.ok(matchesDomains('http://a.b.example.com', ['example.com']));
  t.notOk(matchesDomains('https://notexample.com/', ['example.com']));
  t.notOk(matchesDomains('https://example.com.evil.net/', ['example.com']));
  t.notOk(matchesDomains('https://example.com/', ['docs.example.com']), 'a subdomain entry does not cover its parent');
});

t.test(
  'matching is case-insensitive, and a scheme, a leading *. or a trailing dot in an entry are ignored',
  async (t) => {
    t.ok(matchesDomains('https://Docs.Example.COM/Guide', ['EXAMPLE.com']));
    t.ok(matchesDomains('https://docs.example.com/', ['https://example.com']));
    t.ok(matchesDomains('https://docs.example.com/', ['*.example.com']));
    t.ok(matchesDomains('https://example.com./', ['example.com.']));
  },
);

t.test('an entry with a path also needs the URL path to start with it, on a segment boundary', async (t) => {
  t.ok(matchesDomains('https://example.com/blog', ['example.com/blog']));
  t.ok(matchesDomains('https://example.com/blog/post-1', ['example.com/blog/']));
  t.notOk(matchesDomains('https://example.com/blogroll', ['example.com/blog']));
  t.notOk(matchesDomains('https://example.com/docs', ['example.com/blog']));
});

t.test('a blocked domain removes its host and subdomains; blocking wins over allowing', async (t) => {
  t.notOk(matchesDomains('https://ads.example.com/x', undefined, ['ads.example.com']));
  t.ok(matchesDomains('https://www.example.com/x', undefined, ['ads.example.com']));
  t.notOk(matchesDomains('https://ads.example.com/x', ['example.com'], ['ads.example.com']));
  t.ok(matchesDomains('https://www.example.com/x', ['example.com'], ['ads.example.com']));
});

t.test('no lists, or empty ones, restrict nothing', async (t) => {
  t.ok(matchesDomains('https://anything.example/'));
  t.ok(matchesDomains('https://anything.example/', [], []));
});

t.test('a URL that does not parse, or is not http(s), never passes', async (t) => {
  t.notOk(matchesDomains('not a url', ['example.com']));
  t.notOk(matchesDomains('example.com/page', ['example.com']), 'no scheme: not a URL');
  t.notOk(matchesDomains('ftp://example.com/file', ['example.com']));
  t.notOk(matchesDomains('javascript:alert(1)'));
  t.notOk(matchesDomains('not a url', undefined, ['example.com']));
});

t.test('domainFilter compiles the lists once for many URLs', async (t) => {
  const allowed = domainFilter(['example.org'], ['spam.example.org']);
  t.same(['https://example.org/', 'https://spam.example.org/', 'https://example.net/'].map(allowed), [
    true,
    false,
    false,
  ]);
});
