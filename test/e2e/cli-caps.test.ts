// `gateway caps set|show|clear` (issue #28) on a temporary data directory, run as a child process: a key's
// and a member's caps with their use, the organization's caps, and one-line refusals.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runGateway, type CliResult } from '../helpers/gateway-process.js';

const dataDir = join(mkdtempSync(join(tmpdir(), 'gateway-cli-caps-')), 'data');
const gateway = (...args: string[]): CliResult => runGateway({ GATEWAY_DATA_DIR: dataDir }, ...args);

t.equal(gateway('orgs', 'create', 'acme', '--member', 'ada@example.com:admin').code, 0);
t.equal(gateway('keys', 'create', 'acme', 'ci').code, 0);
const keyId = gateway('keys', 'list', 'acme').out.split('\t')[0]!;

t.test("caps set, show and clear a key's caps; set replaces them all", async (t) => {
  const set = gateway('caps', 'set', 'acme', '--key', keyId, '--day-micros', '5000000', '--rpm', '60');
  t.equal(set.code, 0, set.err);
  t.match(set.err, `set the caps of the key ${keyId}`);
  const lines = set.out.trim().split('\n');
  t.equal(lines[0], `key\t${keyId}\tci\t-`, 'the key, its name, and no member (the CLI made it)');
  t.same(lines.slice(1, 3), ['cap\tday_micros\t5000000', 'cap\trequests_per_minute\t60']);
  t.match(lines[3], /^use\tday_micros\t0\tresets \d{4}-\d\d-\d\dT00:00:00\.000Z$/);
  t.equal(lines.at(-1), 'use\tconcurrent_requests\t0');

  t.equal(gateway('caps', 'show', 'acme').out, `key\t${keyId}\tday_micros=5000000\trequests_per_minute=60\n`);
  t.equal(gateway('caps', 'set', 'acme', '--key', keyId, '--concurrent', '2').code, 0);
  t.equal(gateway('caps', 'show', 'acme').out, `key\t${keyId}\tconcurrent_requests=2\n`, 'the others are cleared');
  t.match(gateway('caps', 'show', 'acme', '--key', keyId).out, /^cap\tconcurrent_requests\t2$/m);

  const cleared = gateway('caps', 'clear', 'acme', '--key', keyId);
  t.equal(cleared.code, 0, cleared.err);
  t.notMatch(cleared.out, /^cap\t/m);
  const none = gateway('caps', 'show', 'acme');
  t.equal(none.out, '');
  t.match(none.err, 'no caps in this organization');
});

t.test("caps set, show and clear a member's caps", async (t) => {
  const set = gateway(
    'caps',
    'set',
    'acme',
    '--member',
    'Ada@Example.com',
    '--week-micros',
    '7000000',
    '--month-micros',
    '9000000',
    '--itpm',
    '1000',
    '--otpm',
    '500',
  );
  t.equal(set.code, 0, set.err);
  t.match(set.out, /^member\tada@example\.com\ncap\tweek_micros\t7000000\ncap\tmonth_micros\t9000000\n/);
  t.match(set.out, /^cap\tinput_tokens_per_minute\t1000\ncap\toutput_tokens_per_minute\t500$/m);
  t.match(gateway('caps', 'show', 'acme').out, /^member\tada@example\.com\tweek_micros=7000000\t/m);
  t.equal(gateway('caps', 'clear', 'acme', '--member', 'ada@example.com').code, 0);
  t.equal(gateway('caps', 'show', 'acme').out, '');
});

t.test('caps refusals are one line and a non-zero exit code, and change nothing', async (t) => {
  const cases: Array<[string[], number, RegExp]> = [
    [['caps', 'set', 'acme', '--key', 'key_nope', '--rpm', '1'], 1, /^gateway: no key 'key_nope'$/],
    [['caps', 'show', 'acme', '--member', 'cy@example.com'], 1, /^gateway: 'cy@example\.com' is not a member/],
    [['caps', 'show', 'nope'], 1, /^gateway: no organization 'nope'$/],
    [
      ['caps', 'set', 'acme', '--key', keyId, '--day-micros=-5'],
      1,
      /^gateway: --day-micros must be a whole number, not '-5'$/,
    ],
    [['caps', 'set', 'acme', '--key', keyId, '--rpm', '1.5'], 1, /^gateway: --rpm must be a whole number/],
    [
      ['caps', 'set', 'acme', '--key', keyId, '--concurrent', '1000000001'],
      1,
      /^gateway: --concurrent: 'concurrent_requests' must be a whole number from 0 to 1000000000/,
    ],
    [
      ['caps', 'set', 'acme', '--key', keyId, '--month-micros', '9007199254740992'],
      1,
      /^gateway: --month-micros: 'month_micros' must be a whole number from 0 to 9007199254740991/,
    ],
    [['caps', 'set', 'acme', '--key', keyId], 64, /^gateway: give at least one cap/],
    [
      ['caps', 'set', 'acme', '--rpm', '5'],
      64,
      /^gateway: usage: gateway caps set ORG \(--key KEY_ID \| --member EMAIL\)/,
    ],
    [['caps', 'clear', 'acme', '--key', keyId, '--member', 'ada@example.com'], 64, /^gateway: name one key/],
    [['caps', 'show', 'acme', '--rpm', '5'], 64, /^gateway: --rpm is for 'gateway caps set' only$/],
    [['caps', 'raise', 'acme'], 64, /^gateway: unknown command 'gateway caps raise'/],
  ];
  for (const [args, code, message] of cases) {
    const result = gateway(...args);
    t.equal(result.code, code, `gateway ${args.join(' ')}: exit ${code}`);
    t.equal(result.err.trim().split('\n').length, 1, 'one line');
    t.match(result.err.trim(), message);
    t.equal(result.out, '', 'nothing on stdout');
  }
  t.equal(gateway('caps', 'show', 'acme').out, '', 'nothing was set');
});
