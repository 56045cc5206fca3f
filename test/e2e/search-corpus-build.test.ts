// The local search provider's demo corpus is found from the build (dist/, plain node), not only from the sources.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { compileToDist, runPlainNode } from '../helpers/from-build.js';

t.test('the demo corpus is found from the build too (dist/, plain node, no TypeScript loader)', async (t) => {
  const outDir = await compileToDist(t, 'search', ['plugins/search/providers/index.ts']);
  const script = `
    import { createSearchProvider } from ${JSON.stringify(join(outDir, 'plugins', 'search', 'providers', 'index.js'))};
    const provider = await createSearchProvider({}, { resolvePath: (path) => path });
    const results = await provider.search({ query: 'weather in Lisbon', maxResults: 1, signal: new AbortController().signal });
    console.log(results[0].url);`;
  const stdout = await runPlainNode(outDir, script, tmpdir());
  t.equal(stdout.trim(), 'https://weather.example/forecast/lisbon');
});
