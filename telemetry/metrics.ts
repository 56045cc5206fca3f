// Every Prometheus metric of a node, in one registry (prom-client), with what each records. The names
// and labels are the contract of docs/observability.md, the Grafana dashboard and the alert rules; the
// GenAI ones are OpenTelemetry's GenAI semantic conventions under their Prometheus names. Labels are
// bounded: routes, dialects, status codes, error codes, replicas and providers come from the code or
// the configuration; an organization label only with `metrics.per_org`; never a key.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { BoundHistogram, type HistogramSeries } from './bound-histogram.js';

/** The GenAI conventions' bucket boundaries (semantic-conventions, gen-ai-metrics). */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const FIRST_TOKEN_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const PER_TOKEN_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** The gateway's own short waits: upstream first byte, searches, token counts. */
const WORK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The organization labels without `metrics.per_org`: none (one object, not one per call). */
const NO_ORG: Readonly<Record<string, string>> = Object.freeze({});

export type TokenType = 'input' | 'output' | 'cache_read' | 'cache_write';

/** One request as the core saw it end (proxy/exchange/request-end.ts). */
export interface RequestRecord {
  /** The route's path, or `unmatched` for an unknown path or method. */
  route: string;
  /** The route's dialect (`chat`, `messages`, `responses`), or '' when none. */
  dialect: string;
  wire: string;
  stream: boolean;
  status: number;
  /** The caller's organization id, when auth found one (a label only with `metrics.per_org`). */
  org: string | undefined;
}

/** A generation request whose body was decoded: the GenAI metrics. */
export interface GenerationRecord {
  dialect: string;
  /** The model id the client named (the model's, or one of its aliases: bounded by the configuration). */
  model: string;
  /** The gateway error code it failed with, or undefined. */
  error: string | undefined;
  durationSeconds: number;
  /** Streams only: arrival to the first output token sent. */
  firstTokenSeconds: number | undefined;
  /** Streams with 2+ output tokens: the time after the first token, per later token. */
  perOutputTokenSeconds: number | undefined;
  /** The usage the client was told, when it was told one. */
  tokens: Readonly<Record<TokenType, number>> | undefined;
}

/** One generation label set's series (dialect, model, error type), bound once. */
interface GenerationSeries {
  duration: HistogramSeries;
  firstToken: HistogramSeries;
  perOutputToken: HistogramSeries;
  tokens: Record<TokenType, HistogramSeries>;
}

/** What the metrics read at scrape time rather than count as they happen. */
export interface ScrapeSources {
  /** Requests under way on this node (HTTP requests and WebSocket responses). */
  inFlight(): number;
  /** Each upstream replica: whether it is taking requests, requests it has under way, and requests waiting for one of its connections. */
  replicas(): ReadonlyArray<{ replica: string; healthy: boolean; outstanding: number; queued: number }>;
  /** Token counts waiting for a tokenizer worker, when workers count. */
  tokenizerQueue(): number;
}

/** The batch worker's series (batch/worker.ts). */
export interface BatchMetrics {
  /** Lines that ended a run, by outcome (succeeded, errored, deferred by the batch pool's limit, lost_claim). */
  readonly lines: Counter<'outcome'>;
  /** Lines this node runs now. */
  readonly linesRunning: Gauge;
  /** Batches that reached their end, by the status they ended in. */
  readonly batchesEnded: Counter<'status'>;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #perOrg: boolean;
  // The GenAI series met so far, bound to their labels (dialect, model, error type) once: a request's five
  // observations then build no label objects (the map is as bounded as those labels; see the file's head).
  readonly #generationSeries = new Map<string, GenerationSeries>();

  readonly requests: Counter;
  readonly openStreams: Gauge;
  readonly streamsWaitingForClient: Gauge;
  readonly requestDuration: BoundHistogram<string>;
  readonly timeToFirstToken: BoundHistogram<string>;
  readonly timePerOutputToken: BoundHistogram<string>;
  readonly tokenUsage: BoundHistogram<string>;
  readonly rateLimitRejections: Counter;
  readonly insufficientCredits: Counter;
  readonly capRejections: Counter;
  readonly creditsCharged: Counter;
  readonly searches: Counter;
  readonly searchDuration: BoundHistogram<string>;
  readonly upstreamRequests: Counter;
  readonly upstreamRetries: Counter;
  readonly upstreamErrors: Counter;
  readonly upstreamFirstByte: BoundHistogram<string>;
  readonly upstreamPoolWaits: Counter;
  readonly upstreamAffinity: Counter;
  readonly tokenCounts: Counter;
  readonly batch: BatchMetrics;

  constructor(options: { perOrg: boolean }) {
    this.#perOrg = options.perOrg;
    const registers = [this.registry];
    const org = options.perOrg ? ['org'] : [];
    const genAi = ['gen_ai_operation_name', 'gen_ai_request_model', 'dialect'];
    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Requests answered, by route, dialect, wire profile, whether streamed, and HTTP status.',
      labelNames: ['route', 'dialect', 'wire', 'stream', 'status', ...org],
      registers,
    });
    this.openStreams = new Gauge({
      name: 'gateway_open_streams',
      help: 'Streamed responses being sent (SSE and WebSocket).',
      registers,
    });
    this.streamsWaitingForClient = new Gauge({
      name: 'gateway_streams_waiting_for_client',
      help: "Streamed responses paused because the client's socket is full (the upstream is not read until it drains).",
      registers,
    });
    this.requestDuration = new BoundHistogram({
      name: 'gen_ai_server_request_duration_seconds',
      help: 'GenAI server request duration: arrival to the last byte of the answer.',
      labelNames: [...genAi, 'error_type'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.timeToFirstToken = new BoundHistogram({
      name: 'gen_ai_server_time_to_first_token_seconds',
      help: 'Time to the first output token of a streamed answer.',
      labelNames: genAi,
      buckets: FIRST_TOKEN_BUCKETS,
      registers,
    });
    this.timePerOutputToken = new BoundHistogram({
      name: 'gen_ai_server_time_per_output_token_seconds',
      help: 'Time per output token after the first, for streamed answers.',
      labelNames: genAi,
      buckets: PER_TOKEN_BUCKETS,
      registers,
    });
    this.tokenUsage = new BoundHistogram({
      name: 'gen_ai_client_token_usage',
      help: 'Tokens per answer by type (input includes cache reads and writes), as the client was told.',
      labelNames: [...genAi, 'gen_ai_token_type'],
      buckets: TOKEN_BUCKETS,
      registers,
    });
    this.rateLimitRejections = new Counter({
      name: 'gateway_rate_limit_rejections_total',
      help: 'Requests refused with 429, by the limit they hit (requests, input_tokens, output_tokens).',
      labelNames: ['limit', ...org],
      registers,
    });
    this.insufficientCredits = new Counter({
      name: 'gateway_insufficient_credits_total',
      help: 'Requests refused with 402: the organization had no credits left.',
      labelNames: org,
      registers,
    });
    this.capRejections = new Counter({
      name: 'gateway_cap_rejections_total',
      help: 'Requests refused with 429 by a cap of their key or member, by the cap (day_micros, concurrent_requests, requests_per_minute, …) and whose it is (key, member).',
      labelNames: ['cap', 'scope'],
      registers,
    });
    this.batch = {
      lines: new Counter({
        name: 'gateway_batch_lines_total',
        help: 'Batch lines that ended a run on this node, by outcome: succeeded, errored, deferred (the batch pool said wait; the line goes back to the queue), lost_claim (its claim ran out before its result was kept).',
        labelNames: ['outcome'],
        registers,
      }),
      linesRunning: new Gauge({
        name: 'gateway_batch_lines_running',
        help: 'Batch lines this node runs now (at most batch.concurrency).',
        registers,
      }),
      batchesEnded: new Counter({
        name: 'gateway_batches_ended_total',
        help: 'Batches this node brought to their end, by the status they ended in (completed, expired, cancelled).',
        labelNames: ['status'],
        registers,
      }),
    };
    this.creditsCharged = new Counter({
      name: 'gateway_credits_charged_micros_total',
      help: 'Micro-credits charged by settled ledger rows.',
      labelNames: org,
      registers,
    });
    this.searches = new Counter({
      name: 'gateway_searches_total',
      help: 'Web searches the gateway ran, by provider and outcome (ok, failed).',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.searchDuration = new BoundHistogram({
      name: 'gateway_search_duration_seconds',
      help: 'Duration of the search provider calls.',
      labelNames: ['provider'],
      buckets: WORK_BUCKETS,
      registers,
    });
    this.upstreamRequests = new Counter({
      name: 'gateway_upstream_requests_total',
      help: 'Requests sent to the upstream, by replica and outcome (the HTTP status class, or error).',
      labelNames: ['replica', 'outcome'],
      registers,
    });
    this.upstreamRetries = new Counter({
      name: 'gateway_upstream_retries_total',
      help: 'Upstream attempts retried after a connection failure, by the replica that failed.',
      labelNames: ['replica'],
      registers,
    });
    this.upstreamErrors = new Counter({
      name: 'gateway_upstream_errors_total',
      help: 'Upstream failures by replica and kind (connect, timeout, overloaded, status_5xx, failed).',
      labelNames: ['replica', 'kind'],
      registers,
    });
    this.upstreamFirstByte = new BoundHistogram({
      name: 'gateway_upstream_first_byte_seconds',
      help: "Time from sending an upstream request to its response's head, by replica.",
      labelNames: ['replica'],
      buckets: WORK_BUCKETS,
      registers,
    });
    this.upstreamPoolWaits = new Counter({
      name: 'gateway_upstream_pool_waits_total',
      help: 'Upstream requests that had to wait for a free connection, by replica.',
      labelNames: ['replica'],
      registers,
    });
    this.upstreamAffinity = new Counter({
      name: 'gateway_upstream_affinity_total',
      help: "Requests of a conversation routed by affinity, by replica and outcome: hit (the conversation's own replica), spilled (its own was full or down).",
      labelNames: ['replica', 'outcome'],
      registers,
    });
    this.tokenCounts = new Counter({
      name: 'gateway_count_tokens_total',
      help: 'Token counts made for count_tokens and the plugins, by outcome (ok, failed).',
      labelNames: ['outcome'],
      registers,
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** The gauges read when scraped: requests under way, replica health and waits, the tokenizer's queue. */
  readAtScrape(sources: ScrapeSources): void {
    const registers = [this.registry];
    new Gauge({
      name: 'gateway_requests_in_flight',
      help: 'Requests under way on this node (HTTP requests and WebSocket responses).',
      registers,
      collect() {
        this.set(sources.inFlight());
      },
    });
    new Gauge({
      name: 'gateway_upstream_replica_healthy',
      help: 'Whether an upstream replica takes requests (1) or sits out after failures (0).',
      labelNames: ['replica'],
      registers,
      // A node of several workers: 1 only while every worker takes requests to it (the others' series are summed).
      aggregator: 'min',
      collect() {
        for (const { replica, healthy } of sources.replicas()) this.set({ replica }, healthy ? 1 : 0);
      },
    });
    new Gauge({
      name: 'gateway_upstream_replica_outstanding',
      help: 'Requests under way on an upstream replica (sent and not yet ended), the load routing weighs.',
      labelNames: ['replica'],
      registers,
      collect() {
        for (const { replica, outstanding } of sources.replicas()) this.set({ replica }, outstanding);
      },
    });
    new Gauge({
      name: 'gateway_upstream_pool_queued',
      help: "Upstream requests waiting for a free connection of a replica's pool.",
      labelNames: ['replica'],
      registers,
      collect() {
        for (const { replica, queued } of sources.replicas()) this.set({ replica }, queued);
      },
    });
    new Gauge({
      name: 'gateway_tokenizer_queue',
      help: 'Token counts waiting for a tokenizer worker.',
      registers,
      collect() {
        this.set(sources.tokenizerQueue());
      },
    });
  }

  /** The labels of an organization's series: its id with `metrics.per_org`, none without. */
  orgLabels(org: string | undefined): Readonly<Record<string, string>> {
    return this.#perOrg ? { org: org ?? '' } : NO_ORG;
  }

  request(record: RequestRecord): void {
    this.requests.inc({
      route: record.route,
      dialect: record.dialect,
      wire: record.wire,
      stream: record.stream ? 'true' : 'false',
      status: record.status,
      ...this.orgLabels(record.org),
    });
  }

  generation(record: GenerationRecord): void {
    const error = record.error ?? '';
    const key = `${record.dialect}\n${record.model}\n${error}`;
    let series = this.#generationSeries.get(key);
    if (series === undefined) {
      series = this.#generationSeriesOf(record.dialect, record.model, error);
      this.#generationSeries.set(key, series);
    }
    series.duration.observe(record.durationSeconds);
    if (record.firstTokenSeconds !== undefined) series.firstToken.observe(record.firstTokenSeconds);
    if (record.perOutputTokenSeconds !== undefined) series.perOutputToken.observe(record.perOutputTokenSeconds);
    const tokens = record.tokens;
    if (tokens === undefined) return;
    series.tokens.input.observe(tokens.input);
    series.tokens.output.observe(tokens.output);
    // Cache reads and writes are parts of the input: observed only for answers that had some.
    if (tokens.cache_read > 0) series.tokens.cache_read.observe(tokens.cache_read);
    if (tokens.cache_write > 0) series.tokens.cache_write.observe(tokens.cache_write);
  }

  #generationSeriesOf(dialect: string, model: string, error: string): GenerationSeries {
    const labels = { gen_ai_operation_name: 'chat', gen_ai_request_model: model, dialect };
    const tokens = (type: TokenType): HistogramSeries => this.tokenUsage.series({ ...labels, gen_ai_token_type: type });
    return {
      duration: this.requestDuration.series({ ...labels, error_type: error }),
      firstToken: this.timeToFirstToken.series(labels),
      perOutputToken: this.timePerOutputToken.series(labels),
      tokens: {
        input: tokens('input'),
        output: tokens('output'),
        cache_read: tokens('cache_read'),
        cache_write: tokens('cache_write'),
      },
    };
  }

  /** The Prometheus text format's content type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text format of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
