// The usage panel's *Export CSV* link in the console, in a real headless Chromium: it downloads the CSV
// of the range the panel shows, and a plain member's file holds its own keys' usage only.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { byTestId } from '../helpers/browser.js';
import { signedInPage } from '../helpers/console.js';
import { chatStatus } from '../helpers/key-use.js';
import { ACME_MEMBERS, consoleStackForFile } from '../kit/console-stack.js';
import { AUTH_CACHED, chainOf } from '../kit/stack-presets.js';

const { smtp, stack, store, browser, consoleUrl } = await consoleStackForFile(t, {
  yaml: chainOf(AUTH_CACHED, 'meter'),
});
const acme = (await store.orgs.create('acme', ACME_MEMBERS)).id;
await store.orgs.addCredits(acme, 10_000_000);
const bobKey = await store.keys.create(acme, 'bob-ci', { who: 'bob@acme.example', address: null });
const adaKey = await store.keys.create(acme, 'ada-prod', { who: 'ada@acme.example', address: null });
for (const { key } of [bobKey, adaKey, bobKey])
  if ((await chatStatus(stack.gateway.url, key)) !== 200) throw new Error('a request failed');

t.test("a member's Export CSV downloads the shown range's usage of its own keys", async (t) => {
  const { page, problems } = await signedInPage(t, browser, {
    consoleUrl,
    smtp,
    email: 'bob@acme.example',
    expected: /status of 401/,
  });
  await page.locator('[data-testid="usage-chart"][data-days="30"]').waitFor();
  const link = byTestId(page, 'usage-export');
  t.match(
    await link.getAttribute('href'),
    new RegExp(`^/console/v1/orgs/${acme}/usage/export\\?from=\\d{4}-\\d\\d-\\d\\d&to=`),
  );
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  t.match(download.suggestedFilename(), new RegExp(`^usage-${acme}-\\d{4}-\\d\\d-\\d\\d-\\d{4}-\\d\\d-\\d\\d\\.csv$`));
  const lines = (await readFile((await download.path())!, 'utf8')).split('\r\n');
  t.equal(
    lines[0],
    'day,member,key_id,key_name,model,requests,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,searches,cost_micros,cost',
  );
  t.match(lines[1], new RegExp(`^\\d{4}-\\d\\d-\\d\\d,bob@acme.example,${bobKey.record.id},bob-ci,qwen3-8b,2,`));
  t.match(lines[2], /^total,,,,,2,/, "only bob's key: ada's request is not in it");
  t.same(problems, []);
});
