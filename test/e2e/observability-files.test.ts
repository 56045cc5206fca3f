// The Grafana dashboard (docs/grafana-dashboard.json) and the alert rules (docs/alerts.yml) an operator
// imports: well formed, showing every metric of the catalogue, and naming only metrics a gateway exports:
// after a workload that gives each one a sample (successes and streams in every dialect, a 400, a 429, a
// 402, a search, a count_tokens call, upstream failures, a wait for an upstream connection, a batch), every
// metric their queries name has a sample line on /metrics.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { packageRoot } from '../../config/package-root.js';
import { SYSTEM_ACTOR } from '../../store/audit-log.js';
import { GatewayMetrics } from '../../telemetry/metrics.js';
import { DIALECTS, PATHS, requestBody } from '../helpers/metered-answers.js';
import { orgWithKey } from '../helpers/org-key.js';
import { requestLine } from '../helpers/stack.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS, tiersOf } from '../kit/stack-presets.js';

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr?: unknown }>;
  /** A collapsed row's panels. */
  panels?: Panel[];
}
interface Dashboard {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query?: unknown }> };
}
interface Rule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: { severity?: unknown };
  annotations?: { summary?: unknown; description?: unknown };
}
interface RuleFile {
  groups: Array<{ name: string; rules: Rule[] }>;
}

const docs = join(packageRoot(), 'docs');
const dashboard = JSON.parse(readFileSync(join(docs, 'grafana-dashboard.json'), 'utf8')) as Dashboard;
const alerts = parse(readFileSync(join(docs, 'alerts.yml'), 'utf8')) as RuleFile;

/** Every panel, the panels of collapsed rows included. */
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
const rules = alerts.groups.flatMap((group) => group.rules);

/** The PromQL of the dashboard (panels and variables) and of the rules, each with where it comes from. */
const queries: Array<{ where: string; expr: string }> = [
  ...panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: String(target.expr) })),
  ),
  ...dashboard.templating.list
    .filter((variable) => variable.type === 'query')
    .map((variable) => ({ where: `variable ${variable.name}`, expr: variableQuery(variable.query) })),
  ...rules.map((rule) => ({ where: `rule ${String(rule.alert)}`, expr: String(rule.expr) })),
];

function variableQuery(query: unknown): string {
  return typeof query === 'object' && query !== null ? String((query as { query?: unknown }).query) : String(query);
}

/** The metric names a query uses: the gateway's, the GenAI ones and Node's (`up` is Prometheus's own). */
function metricNames(expr: string): string[] {
  const bare = expr
    // Strings (label values, regexes), label matchers and label lists name labels, not metrics.
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/\b(?:gateway|gen_ai|nodejs|process)_\w+/g)].map((match) => match[0]);
}

/** Where the brackets of a query stop balancing (strings skipped), or undefined when they balance. */
function unbalanced(expr: string): string | undefined {
  const closing: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const open: string[] = [];
  let quote: string | undefined;
  for (let i = 0; i < expr.length; i++) {
    const char = expr[i]!;
    if (quote !== undefined) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'" || char === '`') quote = char;
    else if (char in closing) open.push(closing[char]!);
    else if (char === ')' || char === ']' || char === '}') {
      if (open.pop() !== char) return `unexpected ${char} at ${i}`;
    }
  }
  if (quote !== undefined) return `unclosed ${quote}`;
  return open.length > 0 ? `unclosed, expecting ${open.reverse().join('')}` : undefined;
}

t.test('every dashboard panel has an id of its own, and every panel but a row queries PromQL', async (t) => {
  t.ok(dashboard.schemaVersion >= 36, 'a schema recent Grafana versions import');
  const ids = panels.map((panel) => panel.id);
  t.same(
    ids.filter((id, index) => ids.indexOf(id) !== index),
    [],
    'no duplicate panel ids',
  );
  t.ok(
    ids.every((id) => Number.isInteger(id) && id > 0),
    'ids are positive integers',
  );
  for (const panel of panels.filter((panel) => panel.type !== 'row')) {
    t.ok((panel.targets ?? []).length > 0, `panel "${panel.title}" has queries`);
    for (const target of panel.targets ?? [])
      t.ok(typeof target.expr === 'string' && target.expr.trim() !== '', `panel "${panel.title}": an expression`);
    t.equal(panel.datasource?.uid, '${datasource}', `panel "${panel.title}": the data source variable`);
  }
  t.same(
    dashboard.templating.list.map((variable) => variable.name),
    ['datasource', 'job', 'instance'],
    'the data source, job and node variables',
  );
});

t.test('every alert rule has a name, an expression, a duration, a severity, a summary and a description', async (t) => {
  t.ok(alerts.groups.length > 0 && rules.length > 0, 'groups of rules');
  for (const group of alerts.groups) t.ok(typeof group.name === 'string' && group.rules.length > 0, group.name);
  const names = rules.map((rule) => rule.alert);
  t.same(
    names.filter((name, index) => names.indexOf(name) !== index),
    [],
    'no two rules share a name',
  );
  for (const rule of rules) {
    const name = String(rule.alert);
    t.match(rule.alert, /^Gateway[A-Z]\w+$/, `${name}: a name`);
    t.ok(typeof rule.expr === 'string' && rule.expr.trim() !== '', `${name}: an expression`);
    t.match(rule.for, /^\d+[smh]$/, `${name}: a duration`);
    t.ok(rule.labels?.severity === 'warning' || rule.labels?.severity === 'critical', `${name}: a severity`);
    t.ok(typeof rule.annotations?.summary === 'string' && rule.annotations.summary !== '', `${name}: a summary`);
    t.ok(
      typeof rule.annotations?.description === 'string' && rule.annotations.description !== '',
      `${name}: a description`,
    );
  }
});

t.test('the brackets of every dashboard query and alert expression balance', async (t) => {
  for (const { where, expr } of queries) t.equal(unbalanced(expr), undefined, where);
});

t.test('the dashboard shows every metric of the gateway catalogue', async (t) => {
  const metrics = new GatewayMetrics({ perOrg: false });
  metrics.readAtScrape({ inFlight: () => 0, replicas: () => [], tokenizerQueue: () => 0 });
  const shown = new Set(
    panels
      .flatMap((panel) => (panel.targets ?? []).flatMap((target) => metricNames(String(target.expr))))
      .map((name) => name.replace(/_(?:bucket|sum|count)$/, '')),
  );
  const catalogue = metrics.registry
    .getMetricsAsArray()
    .map((metric) => metric.name)
    .filter((name) => /^(?:gateway|gen_ai)_/.test(name));
  t.ok(catalogue.length > 20, 'the catalogue');
  t.same(
    catalogue.filter((name) => !shown.has(name)),
    [],
    'no metric left out',
  );
});

const SETUP = `upstream:
  connections: 1
  forward_headers: [x-sim-fault]
  retries: 1
  retry_base_ms: 1
  retry_max_ms: 1
metrics:
  per_org: true
${tiersOf(
  { name: 'Tiny', fromSpend: 0, requests: 1 },
  { name: 'Roomy', fromSpend: 100, requests: 10_000, inputTokens: 10_000_000, outputTokens: 10_000_000 },
)}${CHAINS.authRatelimitMeterSearch}`;

// per_org: the per-organization counters have a sample only once something counted them.
const stack = await stackForFile(t, { yaml: SETUP, env: { GATEWAY_METRICS_PORT: '0' } });

/** A new organization with `credits`, `spent` credits of lifetime spend (its tier), and its key. */
async function newKey(name: string, credits: number, spent: number): Promise<string> {
  return (await orgWithKey(await stack.store(), name, { credits, spentCredits: spent })).key;
}

const scrape = async (): Promise<string> => (await fetch(`${stack.gateway.metricsUrl!}/metrics`)).text();

t.test('every metric the dashboard and the alerts name has a sample on /metrics after a workload', async (t) => {
  const roomy = await newKey('roomy', 100, 100);
  const tight = await newKey('tight', 100, 0);
  const broke = await newKey('broke', 0, 0);
  /** The request ids sent: their metrics are recorded when their log lines are written. */
  const ids: string[] = [];
  const send = async (
    key: string,
    path: string,
    body: unknown,
    expected: number,
    headers: Record<string, string> = {},
  ): Promise<void> => {
    const response = await fetch(stack.gateway.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: JSON.stringify(body),
    });
    await response.text();
    t.equal(response.status, expected, `${path} ${JSON.stringify(headers)}: ${expected}`);
    ids.push(response.headers.get('x-request-id')!);
  };

  for (const dialect of DIALECTS)
    for (const stream of [false, true]) await send(roomy, PATHS[dialect], requestBody(dialect, stream), 200);
  await send(roomy, PATHS.chat, { model: 'qwen3-8b', messages: 'not a list' }, 400);
  await send(
    roomy,
    PATHS.messages,
    {
      model: 'qwen3-8b',
      max_tokens: 300,
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      messages: [{ role: 'user', content: 'search: lisbon weather' }],
    },
    200,
  );
  await send(
    roomy,
    '/v1/messages/count_tokens',
    { model: 'qwen3-8b', messages: [{ role: 'user', content: 'How many tokens?' }] },
    200,
  );
  // The upstream fails: an error status, then a connection reset before any byte (retried once).
  await send(roomy, PATHS.chat, requestBody('chat', false), 502, { 'x-sim-fault': '500' });
  await send(roomy, PATHS.chat, requestBody('chat', false), 502, { 'x-sim-fault': 'reset' });
  await send(tight, PATHS.chat, requestBody('chat', false), 200);
  await send(tight, PATHS.chat, requestBody('chat', false), 429);
  await send(broke, PATHS.chat, requestBody('chat', false), 402);
  // A key whose day cap is zero: a cap's 429.
  const store = await stack.store();
  const capped = await orgWithKey(store, 'capped', { credits: 100, spentCredits: 100 });
  const [cappedKey] = await store.keys.list(capped.id);
  await store.caps.set(capped.id, { kind: 'key', keyId: cappedKey!.id }, { dayMicros: 0 }, SYSTEM_ACTOR);
  await send(capped.key, PATHS.chat, requestBody('chat', false), 429);

  // A stream that stalls holds the replica's one connection: the next request waits for it.
  const stalled = new AbortController();
  const holding = await fetch(stack.gateway.url + PATHS.chat, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${roomy}`, 'x-sim-fault': 'stall:2' },
    body: JSON.stringify(requestBody('chat', true)),
    signal: stalled.signal,
  });
  ids.push(holding.headers.get('x-request-id')!);
  const reader = holding.body!.getReader();
  await reader.read();
  const waiting = send(roomy, PATHS.chat, requestBody('chat', false), 200);
  let queued = false;
  for (let scrapes = 0; scrapes < 2000 && !queued; scrapes++)
    queued = /^gateway_upstream_pool_queued\{[^}]*\} [1-9]/m.test(await scrape());
  t.ok(queued, 'a request waits for an upstream connection');
  stalled.abort();
  await reader.read().catch(() => undefined);
  await waiting;

  // A batch of one line (issue #29): its line's run and the batch's end.
  const form = new FormData();
  form.append('purpose', 'batch');
  const line = { custom_id: 'one', method: 'POST', url: PATHS.chat, body: requestBody('chat', false) };
  form.append('file', new Blob([`${JSON.stringify(line)}\n`]), 'batch.jsonl');
  const headers = { authorization: `Bearer ${roomy}` };
  const file = (await (
    await fetch(`${stack.gateway.url}/v1/files`, { method: 'POST', headers, body: form })
  ).json()) as {
    id: string;
  };
  const batch = (await (
    await fetch(`${stack.gateway.url}/v1/batches`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ input_file_id: file.id, endpoint: PATHS.chat, completion_window: '24h' }),
    })
  ).json()) as { id: string };
  await stack.logged((entry) => entry.msg === 'batch ended' && entry.batchId === batch.id);

  for (const id of ids) await requestLine(stack, id);
  const text = await scrape();
  const sampled = new Set(
    text
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => /^[a-zA-Z_:][\w:]*/.exec(line)![0]),
  );
  const named = [...new Set(queries.flatMap(({ expr }) => metricNames(expr)))].sort();
  t.ok(named.length > 20, `${named.length} metrics named`);
  t.same(
    named.filter((name) => !sampled.has(name)),
    [],
    'every named metric has a sample line',
  );
});
