// The config file's JSON Schema, typed by the interface it checks (config/types.ts): a key whose type,
// optionality or allowed values differ between the two is a compile error. The loader compiles it once.
import type { JSONSchemaType } from 'ajv';
import { optional } from './optional-key.js';
import type { GatewayConfig } from './types.js';

export const configSchema: JSONSchemaType<GatewayConfig> = {
  $id: 'gateway-config',
  type: 'object',
  additionalProperties: false,
  required: ['server', 'model', 'upstream', 'wire', 'dialects', 'plugins', 'tokenizer', 'sim', 'log', 'data_dir', 'redis', 'admin', 'limits', 'pricing', 'mail'],
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      required: ['host', 'port', 'body_limit_bytes', 'max_json_depth', 'headers_timeout_ms', 'body_timeout_ms', 'max_connections', 'sse_ping_ms'],
      properties: {
        host: { type: 'string', minLength: 1 },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        body_limit_bytes: { type: 'integer', minimum: 1024 },
        max_json_depth: { type: 'integer', minimum: 8, maximum: 256 },
        headers_timeout_ms: { type: 'integer', minimum: 10, maximum: 600000 },
        body_timeout_ms: { type: 'integer', minimum: 10, maximum: 3600000 },
        max_connections: { type: 'integer', minimum: 1, maximum: 1000000 },
        sse_ping_ms: { type: 'integer', minimum: 10 },
      },
    },
    model: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'upstream_name', 'display_name', 'owned_by', 'created'],
      properties: {
        id: { type: 'string', minLength: 1 },
        upstream_name: { type: 'string', minLength: 1 },
        display_name: { type: 'string' },
        owned_by: { type: 'string' },
        created: { type: 'integer', minimum: 0 },
        max_context_tokens: optional({ type: 'integer', minimum: 16, maximum: 16777216 }),
      },
    },
    upstream: {
      type: 'object',
      additionalProperties: false,
      required: ['urls', 'flavor', 'extra_fields', 'connections', 'queue_timeout_ms', 'connect_timeout_ms', 'first_byte_timeout_ms', 'idle_timeout_ms', 'retries', 'retry_base_ms', 'retry_max_ms', 'unhealthy_ms', 'max_event_bytes', 'forward_headers'],
      properties: {
        urls: { type: 'array', items: { type: 'string', pattern: '^https?://' } },
        api_key: optional({ type: 'string' }),
        api_key_env: optional({ type: 'string' }),
        flavor: { type: 'string', enum: ['vllm', 'llama-server', 'sglang', 'tgi', 'ollama', 'openai'] },
        extra_fields: {
          type: 'array',
          items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', not: { enum: ['web_search', 'web_search_replay', 'model', 'stream_options'] } },
          uniqueItems: true,
        },
        connections: { type: 'integer', minimum: 1, maximum: 65536 },
        queue_timeout_ms: { type: 'integer', minimum: 1 },
        connect_timeout_ms: { type: 'integer', minimum: 1 },
        first_byte_timeout_ms: { type: 'integer', minimum: 1 },
        idle_timeout_ms: { type: 'integer', minimum: 1 },
        retries: { type: 'integer', minimum: 0, maximum: 10 },
        retry_base_ms: { type: 'integer', minimum: 0 },
        retry_max_ms: { type: 'integer', minimum: 0 },
        unhealthy_ms: { type: 'integer', minimum: 0 },
        max_event_bytes: { type: 'integer', minimum: 1024 },
        forward_headers: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9-]+$' } },
      },
    },
    wire: { type: 'string', enum: ['spec', 'openai'] },
    dialects: {
      type: 'object',
      additionalProperties: false,
      required: ['messages', 'responses'],
      properties: {
        messages: {
          type: 'object',
          additionalProperties: false,
          required: ['max_tokens'],
          properties: { max_tokens: { type: 'integer', minimum: 1 } },
        },
        responses: {
          type: 'object',
          additionalProperties: false,
          required: ['function_tools'],
          properties: { function_tools: { type: 'boolean' } },
        },
      },
    },
    tokenizer: {
      type: 'object',
      additionalProperties: false,
      required: ['source', 'local', 'upstream', 'tiktoken', 'worker_threshold_bytes', 'workers'],
      properties: {
        source: { type: 'string', enum: ['upstream', 'local', 'tiktoken'] },
        local: {
          type: 'object',
          additionalProperties: false,
          properties: {
            package: optional({ type: 'string', minLength: 1 }),
            tokenizer_json: optional({ type: 'string', minLength: 1 }),
            tokenizer_config: optional({ type: 'string', minLength: 1 }),
            chat_template: optional({ type: 'string', minLength: 1 }),
          },
          dependencies: { tokenizer_json: ['tokenizer_config'], tokenizer_config: ['tokenizer_json'] },
        },
        upstream: {
          type: 'object',
          additionalProperties: false,
          required: ['flavor', 'add_special', 'timeout_ms'],
          properties: {
            flavor: { type: 'string', enum: ['vllm', 'llama-server'] },
            url: optional({ type: 'string', pattern: '^https?://' }),
            add_special: { type: 'boolean' },
            timeout_ms: { type: 'integer', minimum: 1 },
          },
        },
        tiktoken: {
          type: 'object',
          additionalProperties: false,
          required: ['encoding'],
          properties: { encoding: { type: 'string', enum: ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base', 'gpt2'] } },
        },
        worker_threshold_bytes: { type: 'integer', minimum: 0 },
        workers: { type: 'integer', minimum: 0, maximum: 64 },
      },
    },
    plugins: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: optional({ type: 'string', minLength: 1 }),
          path: optional({ type: 'string', minLength: 1 }),
          options: optional({ type: 'object' }),
        },
        oneOf: [{ required: ['name'] }, { required: ['path'] }],
      },
    },
    sim: {
      type: 'object',
      additionalProperties: false,
      required: ['host', 'port', 'ttft_ms', 'itl_ms', 'output_tokens'],
      properties: {
        host: { type: 'string' },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        ttft_ms: { type: 'integer', minimum: 0 },
        itl_ms: { type: 'integer', minimum: 0 },
        output_tokens: { type: 'integer', minimum: 1 },
        api_key: optional({ type: 'string' }),
      },
    },
    log: {
      type: 'object',
      additionalProperties: false,
      required: ['level'],
      properties: { level: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] } },
    },
    data_dir: { type: 'string', minLength: 1 },
    redis: {
      type: 'object',
      additionalProperties: false,
      properties: {
        url: optional({ type: 'string', pattern: '^rediss?://' }),
        key_prefix: optional({ type: 'string' }),
      },
    },
    admin: {
      type: 'object',
      additionalProperties: false,
      required: ['host', 'port', 'token_env', 'session_ttl_ms'],
      properties: {
        host: { type: 'string' },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        token_env: { type: 'string', minLength: 1 },
        session_ttl_ms: { type: 'integer', minimum: 60000 },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      required: ['header_prefix', 'window_ms', 'tiers'],
      properties: {
        header_prefix: { type: 'string', pattern: '^[a-z0-9-]*$' },
        window_ms: { type: 'integer', minimum: 1000 },
        tiers: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'from_spend', 'requests_per_minute', 'input_tokens_per_minute', 'output_tokens_per_minute'],
            properties: {
              name: { type: 'string', minLength: 1 },
              from_spend: { type: 'number', minimum: 0 },
              requests_per_minute: { type: 'integer', minimum: 1 },
              input_tokens_per_minute: { type: 'integer', minimum: 1 },
              output_tokens_per_minute: { type: 'integer', minimum: 1 },
            },
          },
        },
      },
    },
    pricing: {
      type: 'object',
      additionalProperties: false,
      required: ['input_per_mtok', 'output_per_mtok', 'cache_write_5m_multiplier', 'cache_write_1h_multiplier', 'cache_read_multiplier', 'search_per_1000'],
      properties: {
        input_per_mtok: { type: 'number', minimum: 0, maximum: 100000 },
        output_per_mtok: { type: 'number', minimum: 0, maximum: 100000 },
        cache_write_5m_multiplier: { type: 'number', minimum: 0, maximum: 100 },
        cache_write_1h_multiplier: { type: 'number', minimum: 0, maximum: 100 },
        cache_read_multiplier: { type: 'number', minimum: 0, maximum: 100 },
        search_per_1000: { type: 'number', minimum: 0, maximum: 100000 },
      },
    },
    mail: {
      type: 'object',
      additionalProperties: false,
      required: ['from'],
      properties: {
        url: optional({ type: 'string', pattern: '^smtps?://' }),
        from: { type: 'string', minLength: 3 },
      },
    },
  },
};
