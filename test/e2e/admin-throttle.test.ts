// Wrong admin tokens are throttled per client address (admin/token-throttle.ts), on the admin API's
// Bearer check and at the dashboard's login alike; the throttle's clock is the test's.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { startAdminServer, type RunningAdmin } from '../../admin/server.js';
import { TokenThrottle } from '../../admin/token-throttle.js';
import { openServices, type Services } from '../../services/services.js';
import { loadConfig } from '../../config/load.js';
import { tiersOf } from '../../limits/tiers.js';

const TOKEN = 'admin-token-for-tests-0123456789';
let now = 1_000_000;
let services: Services;
let admin: RunningAdmin;

t.before(async () => {
  const { config } = loadConfig(undefined, {});
  services = await openServices(config, { dataDir: mkdtempSync(join(tmpdir(), 'gateway-admin-throttle-')) });
  admin = await startAdminServer({
    services,
    config: { ...config.admin, port: 0 },
    token: TOKEN,
    tiers: tiersOf(config.limits.tiers),
    log: pino({ level: 'silent' }),
    throttle: new TokenThrottle({ now: () => now }),
  });
});
t.teardown(async () => {
  await admin.close();
  await services.close();
});

const api = (token: string): Promise<Response> =>
  fetch(`${admin.url}/admin/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
const login = (token: string): Promise<Response> =>
  fetch(`${admin.url}/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });

t.test(
  'regression: 500 wrong admin-token guesses in 0.25 s were not throttled; now 10 wrong tokens in a minute from an address get it 429 until the minute has passed',
  async (t) => {
    for (let i = 0; i < 100; i++) t.equal((await api(TOKEN)).status, 200, 'the right token never counts');
    for (let i = 0; i < 5; i++) t.equal((await api(`wrong-guess-${i}-0123456789`)).status, 401);
    for (let i = 0; i < 5; i++)
      t.equal(
        (await login(`wrong-guess-${i}-0123456789`)).status,
        401,
        'failed logins count with failed Bearer tokens',
      );
    now += 20_000;
    const refused = await api('wrong-guess-10-0123456789');
    t.equal(refused.status, 429, 'the 11th guess');
    t.equal(
      refused.headers.get('retry-after'),
      '40',
      'retry after the rest of the minute that began with the first failure',
    );
    t.match(await refused.json(), { error: { code: 'too_many_requests', message: /too many wrong admin tokens/ } });
    t.equal((await api(TOKEN)).status, 429, 'meanwhile the right token is not even looked at');
    t.equal((await login(TOKEN)).status, 429, 'nor at login');
    now += 39_999;
    t.equal((await api(TOKEN)).headers.get('retry-after'), '1');
    now += 1;
    t.equal((await api(TOKEN)).status, 200, 'the minute has passed');
    t.equal((await login(TOKEN)).status, 200);
    t.equal((await api('wrong-guess-again-0123456789')).status, 401, 'a new window');
  },
);
