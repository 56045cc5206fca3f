// The upstream pool's options the pool tests start from: short backoffs, a long cool-down, 8 connections.
import type { UpstreamPoolOptions } from '../../proxy/upstream/pool.js';

export function poolOptions(urls: string[], overrides: Partial<UpstreamPoolOptions> = {}): UpstreamPoolOptions {
  return {
    urls,
    apiKey: undefined,
    connections: 8,
    connectTimeoutMs: 1000,
    firstByteTimeoutMs: 5000,
    idleTimeoutMs: 5000,
    retries: 2,
    retryBaseMs: 5,
    retryMaxMs: 20,
    unhealthyMs: 60_000,
    queueTimeoutMs: 10_000,
    ...overrides,
  };
}
