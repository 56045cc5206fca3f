// The import directions of the gateway (`npm run deps`), checked so they do not depend on review.
// Imports point one way: bin/ (the composition root) → proxy/ (the runtime: exchange, stream, upstream, socket,
// routing, node), plugins/, admin/, console/, services/ → dialects/, tokenizer/, store/, config/, notify/, limits/
// → http/ (HTTP helpers) → core/ (the contracts) → validation/, telemetry/ (leaves). Tests may import anything.

/** Where every rule's `from` stops: tests are free to reach into any part. */
const TESTS = '^test/';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-cycles',
      comment:
        'A cycle (even of types only) means two modules are one concept split in two, or one of them points the wrong way.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'bin-is-the-root',
      comment: 'bin/ puts the parts together and knows them all; a part that imported it would depend on everything.',
      severity: 'error',
      from: { pathNot: ['^bin/', TESTS] },
      to: { path: '^bin/' },
    },
    {
      name: 'core-is-the-contracts',
      comment:
        'core/ holds the contracts every part shares (the canonical form, errors, the Dialect, Plugin and Exchange interfaces, the event stream, routes): it imports nothing of the gateway but the two leaves, so every layer may depend on it.',
      severity: 'error',
      from: { path: '^core/' },
      to: {
        path: '^(batch|proxy|http|plugins|dialects|bin|admin|console|services|store|config|notify|limits|tokenizer|prompt|sim)/',
      },
    },
    {
      name: 'http-helpers-know-only-the-contracts',
      comment:
        'http/ (body reading, listeners, connection limits, request ids, the log) is shared by the gateway, the admin API and the console, so it knows only core/ and never a request path of its own.',
      severity: 'error',
      from: { path: '^http/' },
      to: {
        path: '^(batch|proxy|plugins|dialects|bin|admin|console|services|store|config|notify|limits|tokenizer|prompt|sim)/',
      },
    },
    {
      name: 'runtime-knows-no-dialect-or-plugin',
      comment:
        'The runtime (proxy/) gets its dialects and plugins at start, from bin/; it names none of them, and never reaches into the services, the store or the admin side.',
      severity: 'error',
      from: { path: '^proxy/' },
      to: { path: '^(batch|plugins|dialects|bin|admin|console|services|store|config|notify|tokenizer|prompt|sim)/' },
    },
    {
      name: 'the-stream-kernel-below-the-exchange',
      comment:
        'proxy/stream/ (the push streams, their stages, the SSE codec, the sink that sends encoded events) is what plugins build on: it knows only the contracts, never the exchange runner, the upstream or a door.',
      severity: 'error',
      from: { path: '^proxy/stream/' },
      to: { path: '^proxy/(?!stream/)' },
    },
    {
      name: 'dialects-are-codecs',
      comment:
        'A dialect translates between its wire and the canonical form, and nothing more: it depends on core/ only (and its JSON schemas), never on the runtime, a plugin, the store, the config or the admin side.',
      severity: 'error',
      from: { path: '^dialects/' },
      to: {
        path: '^(batch|proxy|http|plugins|bin|admin|console|services|store|config|notify|limits|tokenizer|prompt|sim|validation)/',
      },
    },
    {
      name: 'dialects-through-the-registry',
      comment:
        'Outside dialects/, only dialects/registry.ts is imported: what a plugin needs of a dialect travels in the canonical request.',
      severity: 'error',
      from: { pathNot: ['^dialects/', TESTS] },
      to: { path: '^dialects/', pathNot: '^dialects/registry\\.ts$' },
    },
    {
      name: 'no-dialect-to-dialect',
      comment:
        'Never translate from one dialect to another (each goes through the canonical form); only the chat error shape is shared, which the responses dialect uses by the spec.',
      severity: 'error',
      from: { path: '^dialects/([^/]+)/' },
      to: { path: '^dialects/[^/]+/', pathNot: ['^dialects/$1/', '^dialects/chat/errors\\.ts$'] },
    },
    {
      name: 'plugins-see-the-canonical-form',
      comment:
        'A plugin works on canonical requests and events (core/, and the stream stages of proxy/stream/), and gets the shared services from its context at start: it imports no dialect, no other part of the runtime, no admin, no composition root.',
      severity: 'error',
      from: { path: '^plugins/' },
      to: { path: '^(batch|dialects|bin|admin|console|services|sim|http)/|^proxy/(?!stream/)' },
    },
    {
      name: 'admin-beside-the-gateway',
      comment:
        'The admin API and CLI work on the store through the services; they share the HTTP helpers (http/) and the contracts (core/) with the gateway, never its runtime, a dialect or a plugin.',
      severity: 'error',
      from: { path: '^admin/' },
      to: { path: '^(proxy|plugins|dialects|bin|sim)/' },
    },
    {
      name: 'console-beside-admin',
      comment:
        "The customers' console is a web listener like the admin one: it uses admin/'s HTTP plumbing (routes, bodies, sessions, errors) and the services, never a plugin (the rate limiter's reading comes from bin/), a dialect or the core's request path.",
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^(proxy|plugins|dialects|bin|sim|tokenizer|notify)/' },
    },
    {
      name: 'admin-never-imports-the-console',
      comment: 'The console builds on the admin plumbing; the operator side does not depend on it.',
      severity: 'error',
      from: { path: '^admin/' },
      to: { path: '^console/' },
    },
    {
      name: 'batch-is-a-door',
      comment:
        'batch/ (the batch APIs, their worker and the batch-line door) runs lines through the exchange runner like the other doors: it uses the runtime (proxy/), the store and the contracts, never a plugin or a dialect (they see a line as any request), the admin side or the composition root.',
      severity: 'error',
      from: { path: '^batch/' },
      to: { path: '^(plugins|dialects|bin|admin|console|sim)/' },
    },
    {
      name: 'services-below-the-gateway',
      comment:
        "The process's shared services (store, Redis, revocations, notices) are opened for the core, the plugins and the admin side alike, so they import none of them.",
      severity: 'error',
      from: { path: '^services/' },
      to: { path: '^(batch|core|http|proxy|plugins|dialects|admin|console|bin|tokenizer|sim)/' },
    },
    {
      name: 'cluster-is-plumbing',
      comment:
        "cluster/ carries messages between a node's primary and its workers; what crosses (windows, registries, revocations) is the parts' own, so it knows only the contracts and the revocation bus, and only bin/ puts it to use.",
      severity: 'error',
      from: { path: '^cluster/' },
      to: {
        path: '^(batch|http|proxy|plugins|dialects|admin|console|bin|services|config|notify|limits|tokenizer|prompt|sim|validation|telemetry)/',
      },
    },
    {
      name: 'only-bin-runs-the-cluster',
      comment:
        'The workers of a node are started by bin/; a part reaches what the node shares through core/shared-objects.ts.',
      severity: 'error',
      from: { pathNot: ['^bin/', '^cluster/', TESTS] },
      to: { path: '^cluster/' },
    },
    {
      name: 'store-is-a-leaf',
      comment: 'The store is the bottom layer: the orgs, keys and ledger know nothing of the gateway that uses them.',
      severity: 'error',
      from: { path: '^store/' },
      to: {
        path: '^(batch|core|http|proxy|plugins|dialects|admin|console|bin|services|config|notify|limits|tokenizer|prompt|sim|validation)/',
      },
    },
    {
      name: 'config-reads-only-its-schema',
      comment:
        'The config loader reads YAML and checks it against its schema (through the shared validation/); it imports nothing of what it configures.',
      severity: 'error',
      from: { path: '^config/' },
      to: {
        path: '^(batch|core|http|proxy|plugins|dialects|admin|console|bin|services|store|notify|limits|tokenizer|prompt|sim)/',
      },
    },
    {
      name: 'notify-only-reads-the-store',
      comment: 'A notice reads who to tell from the store; it knows nothing of the requests that caused it.',
      severity: 'error',
      from: { path: '^notify/' },
      to: { path: '^(core|http|proxy|plugins|dialects|admin|console|bin|services|tokenizer|sim)/' },
    },
    {
      name: 'tokenizer-serves-the-core',
      comment:
        'The token counter counts canonical requests (core/) for the runtime and the plugins; it imports neither them nor the dialects.',
      severity: 'error',
      from: { path: '^tokenizer/' },
      to: { path: '^(proxy|http|plugins|dialects|admin|console|bin|services|sim)/' },
    },
    {
      name: 'limits-are-rules',
      comment:
        'The tiers and the input estimate are plain rules over config, money and canonical requests, used by the core and the plugins; they import neither.',
      severity: 'error',
      from: { path: '^limits/' },
      to: { path: '^(proxy|http|plugins|dialects|admin|console|bin|services|tokenizer|sim)/' },
    },
    {
      name: 'shared-leaves',
      comment:
        'validation/ (the ajv instance, field paths) and prompt/ (chat templates and local tokenizers, shared with the sim) are used by both sides of a boundary, so they import nothing of the gateway.',
      severity: 'error',
      from: { path: '^(validation|prompt)/' },
      to: {
        path: '^(core|http|proxy|plugins|dialects|admin|console|bin|services|store|config|notify|limits|tokenizer|sim)/',
      },
    },
    {
      name: 'telemetry-is-a-leaf',
      comment:
        'telemetry/ (the metrics catalogue, the tracer) is recorded into from every layer (the core, the plugins, the token counter), so it imports nothing of the gateway: what it records comes in as plain values.',
      severity: 'error',
      from: { path: '^telemetry/' },
      to: {
        path: '^(batch|core|http|proxy|plugins|dialects|admin|console|bin|services|store|config|notify|limits|tokenizer|prompt|sim|validation)/',
      },
    },
    {
      name: 'sim-is-another-program',
      comment:
        'The sim plays the upstream, a different server: it shares only prompt/ with the gateway (the same chat templates and tokenizer), so it cannot come to lean on gateway code.',
      severity: 'error',
      from: { path: '^sim/' },
      to: {
        path: '^(core|http|proxy|plugins|dialects|admin|console|bin|services|store|config|notify|limits|tokenizer|validation)/',
      },
    },
  ],
  options: {
    // Type-only imports count: the contracts are types, and a cycle of types is still a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.check.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|coverage|\\.tap|data)/' },
  },
};
