// The import directions of the gateway (`npm run deps`), checked so they do not depend on review.
// Imports point one way: bin/ (the composition root) → proxy/ (the core), dialects/, plugins/, admin/,
// console/, services/ → store/, config/, notify/, limits/, tokenizer/ → validation/, prompt/, telemetry/. Tests may import anything.

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
      name: 'core-knows-no-dialect-or-plugin',
      comment:
        'The core (proxy/) gets its dialects and plugins at start, from bin/; it names none of them, and never reaches into the services, the store or the admin side.',
      severity: 'error',
      from: { path: '^proxy/' },
      to: { path: '^(plugins|dialects|bin|admin|console|services|store|config|notify|tokenizer|prompt|sim)/' },
    },
    {
      name: 'dialects-are-codecs',
      comment:
        "A dialect translates between its wire and the canonical form, and nothing more: it uses the core's types, never a plugin, the store, the config or the admin side.",
      severity: 'error',
      from: { path: '^dialects/' },
      to: { path: '^(plugins|bin|admin|console|services|store|config|notify|tokenizer|prompt|sim)/' },
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
        'A plugin works on canonical requests and events, and gets the shared services from its context at start: it imports no dialect, no admin, no composition root.',
      severity: 'error',
      from: { path: '^plugins/' },
      to: { path: '^(dialects|bin|admin|console|services|sim)/' },
    },
    {
      name: 'admin-beside-the-gateway',
      comment:
        'The admin API and CLI work on the store through the services; they share HTTP helpers with the core but no dialect or plugin.',
      severity: 'error',
      from: { path: '^admin/' },
      to: { path: '^(plugins|dialects|bin|sim)/' },
    },
    {
      name: 'console-beside-admin',
      comment:
        "The customers' console is a web listener like the admin one: it uses admin/'s HTTP plumbing (routes, bodies, sessions, errors) and the services, never a plugin (the rate limiter's reading comes from bin/), a dialect or the core's request path.",
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^(plugins|dialects|bin|sim|tokenizer|notify)/' },
    },
    {
      name: 'admin-never-imports-the-console',
      comment: 'The console builds on the admin plumbing; the operator side does not depend on it.',
      severity: 'error',
      from: { path: '^admin/' },
      to: { path: '^console/' },
    },
    {
      name: 'services-below-the-gateway',
      comment:
        "The process's shared services (store, Redis, revocations, notices) are opened for the core, the plugins and the admin side alike, so they import none of them.",
      severity: 'error',
      from: { path: '^services/' },
      to: { path: '^(proxy|plugins|dialects|admin|console|bin|tokenizer|sim)/' },
    },
    {
      name: 'store-is-a-leaf',
      comment: 'The store is the bottom layer: the orgs, keys and ledger know nothing of the gateway that uses them.',
      severity: 'error',
      from: { path: '^store/' },
      to: {
        path: '^(proxy|plugins|dialects|admin|console|bin|services|config|notify|limits|tokenizer|prompt|sim|validation)/',
      },
    },
    {
      name: 'config-reads-only-its-schema',
      comment:
        'The config loader reads YAML and checks it against its schema (through the shared validation/); it imports nothing of what it configures.',
      severity: 'error',
      from: { path: '^config/' },
      to: { path: '^(proxy|plugins|dialects|admin|console|bin|services|store|notify|limits|tokenizer|prompt|sim)/' },
    },
    {
      name: 'notify-only-reads-the-store',
      comment: 'A notice reads who to tell from the store; it knows nothing of the requests that caused it.',
      severity: 'error',
      from: { path: '^notify/' },
      to: { path: '^(proxy|plugins|dialects|admin|console|bin|services|tokenizer|sim)/' },
    },
    {
      name: 'tokenizer-serves-the-core',
      comment:
        'The token counter counts canonical requests for the core and the plugins; it imports neither plugins nor dialects.',
      severity: 'error',
      from: { path: '^tokenizer/' },
      to: { path: '^(plugins|dialects|admin|console|bin|services|sim)/' },
    },
    {
      name: 'limits-are-rules',
      comment:
        'The tiers and the input estimate are plain rules over config, money and canonical requests, used by the core and the plugins; they import neither.',
      severity: 'error',
      from: { path: '^limits/' },
      to: { path: '^(plugins|dialects|admin|console|bin|services|tokenizer|sim)/' },
    },
    {
      name: 'shared-leaves',
      comment:
        'validation/ (the ajv instance, field paths) and prompt/ (chat templates and local tokenizers, shared with the sim) are used by both sides of a boundary, so they import nothing of the gateway.',
      severity: 'error',
      from: { path: '^(validation|prompt)/' },
      to: { path: '^(proxy|plugins|dialects|admin|console|bin|services|store|config|notify|limits|tokenizer|sim)/' },
    },
    {
      name: 'telemetry-is-a-leaf',
      comment:
        'telemetry/ (the metrics catalogue, the tracer) is recorded into from every layer (the core, the plugins, the token counter), so it imports nothing of the gateway: what it records comes in as plain values.',
      severity: 'error',
      from: { path: '^telemetry/' },
      to: {
        path: '^(proxy|plugins|dialects|admin|console|bin|services|store|config|notify|limits|tokenizer|prompt|sim|validation)/',
      },
    },
    {
      name: 'sim-is-another-program',
      comment:
        'The sim plays the upstream, a different server: it shares only prompt/ with the gateway (the same chat templates and tokenizer), so it cannot come to lean on gateway code.',
      severity: 'error',
      from: { path: '^sim/' },
      to: {
        path: '^(proxy|plugins|dialects|admin|console|bin|services|store|config|notify|limits|tokenizer|validation)/',
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
