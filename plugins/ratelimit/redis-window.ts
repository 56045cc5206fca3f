// The shared backend: the counters in Redis, on the gateway's one client (auto-pipelined), so every node
// counts in the same keys; each phase of a call is one Lua script (redis-scripts.ts), so one atomic step
// and one round trip. The keys of one organization share a hash tag, so on a Redis Cluster its scripts
// run on the master of that slot. If Redis stops answering (or, on a cluster, the master of an
// organization's slot is lost), the node counts that organization in its own memory (memory-window.ts)
// until Redis answers again: the limits then hold per node rather than failing every request.
import { once } from 'node:events';
import type { RedisClient } from '../../store/redis-client.js';
import { MemoryWindow } from './memory-window.js';
import { CHARGE_INPUT, counterKey, OPEN, SETTLE } from './redis-scripts.js';
import {
  boundedAmount,
  type Count,
  type Counts,
  type InputCharge,
  type RateWindow,
  type Settled,
  type WindowLog,
} from './window.js';

/** How long the start waits for Redis before giving up (the node does not start without its counters). */
const READY_TIMEOUT_MS = 10_000;

/** A script defined on the client: keys, then arguments. */
type Script = (...keysAndArgs: string[]) => Promise<unknown>;

/** What the scripts answer: integers, or nil (null) for a counter left alone. */
type Reply = ReadonlyArray<number | null>;

/**
 * After a script of an organization failed, how long it counts in this node's memory before Redis is
 * asked again: a lost master costs one failed command per organization per second, not one per call.
 */
export const RETRY_REDIS_AFTER_MS = 1000;

export async function redisWindow(
  client: RedisClient,
  keyPrefix: string,
  windowSeconds: number,
  now: () => number = Date.now,
): Promise<RateWindow> {
  if (client.status !== 'ready') await once(client, 'ready', { signal: AbortSignal.timeout(READY_TIMEOUT_MS) });
  return new RedisWindow(client, keyPrefix, windowSeconds, now);
}

export class RedisWindow implements RateWindow {
  readonly windowMs: number;
  readonly #client: RedisClient;
  readonly #keyPrefix: string;
  readonly #windowSeconds: string;
  readonly #open: Script;
  readonly #chargeInput: Script;
  readonly #settle: Script;
  /** Where this node counts while Redis is not ready or a script fails. */
  readonly #fallback: MemoryWindow;
  /** Organizations whose last script failed, and when to ask Redis again. */
  readonly #failedUntil = new Map<string, number>();
  readonly #now: () => number;

  constructor(client: RedisClient, keyPrefix: string, windowSeconds: number, now: () => number = Date.now) {
    this.windowMs = windowSeconds * 1000;
    this.#client = client;
    this.#keyPrefix = keyPrefix;
    this.#windowSeconds = String(windowSeconds);
    this.#open = defineScript(client, 'gatewayRateOpen', 3, OPEN);
    this.#chargeInput = defineScript(client, 'gatewayRateChargeInput', 1, CHARGE_INPUT);
    this.#settle = defineScript(client, 'gatewayRateSettle', 2, SETTLE);
    this.#fallback = new MemoryWindow(windowSeconds, now);
    this.#now = now;
  }

  async open(orgId: string, requests: number, log?: WindowLog): Promise<Counts> {
    if (!this.#useRedis(orgId)) return this.#fallback.open(orgId, requests);
    let reply: Reply;
    try {
      reply = (await this.#open(
        this.#key('requests', orgId),
        this.#key('input', orgId),
        this.#key('output', orgId),
        this.#windowSeconds,
        String(boundedAmount(requests)),
      )) as Reply;
    } catch (error) {
      return this.#fallBack(orgId, error, log).open(orgId, requests);
    }
    const now = this.#now();
    return {
      requests: countOf(reply[0], reply[1], now),
      input: countOf(reply[2], reply[3], now),
      output: countOf(reply[4], reply[5], now),
    };
  }

  async chargeInput(orgId: string, estimate: number, limit: number, log?: WindowLog): Promise<InputCharge> {
    if (!this.#useRedis(orgId)) return this.#fallback.chargeInput(orgId, estimate, limit);
    let reply: Reply;
    try {
      reply = (await this.#chargeInput(
        this.#key('input', orgId),
        this.#windowSeconds,
        String(boundedAmount(estimate)),
        String(limit),
      )) as Reply;
    } catch (error) {
      return this.#fallBack(orgId, error, log).chargeInput(orgId, estimate, limit);
    }
    return { admitted: reply[0] === 1, input: countOf(reply[1], reply[2], this.#now()) };
  }

  async settle(
    orgId: string,
    input: number | undefined,
    output: number | undefined,
    log?: WindowLog,
  ): Promise<Settled> {
    if (input === undefined && output === undefined) return {};
    if (!this.#useRedis(orgId)) return this.#fallback.settle(orgId, input, output);
    let reply: Reply;
    try {
      reply = (await this.#settle(
        this.#key('input', orgId),
        this.#key('output', orgId),
        this.#windowSeconds,
        input === undefined ? '' : String(boundedAmount(input)),
        output === undefined ? '' : String(boundedAmount(output)),
      )) as Reply;
    } catch (error) {
      return this.#fallBack(orgId, error, log).settle(orgId, input, output);
    }
    const now = this.#now();
    const settled: Settled = {};
    if (input !== undefined) settled.input = countOf(reply[0], reply[1], now);
    if (output !== undefined) settled.output = countOf(reply[2], reply[3], now);
    return settled;
  }

  /** A script failed (Redis gone, or it did not answer within the client's command timeout): memory for a while. */
  #fallBack(orgId: string, error: unknown, log: WindowLog | undefined): MemoryWindow {
    this.#failedUntil.set(orgId, this.#now() + RETRY_REDIS_AFTER_MS);
    log?.warn(
      { err: error instanceof Error ? error.message : String(error) },
      `ratelimit: Redis failed; this node counts the organization in its own memory for ${RETRY_REDIS_AFTER_MS} ms`,
    );
    return this.#fallback;
  }

  #useRedis(orgId: string): boolean {
    if (this.#client.status !== 'ready') return false;
    const until = this.#failedUntil.get(orgId);
    if (until === undefined) return true;
    if (this.#now() < until) return false;
    this.#failedUntil.delete(orgId);
    return true;
  }

  #key(kind: keyof Counts, orgId: string): string {
    return counterKey(this.#keyPrefix, kind, orgId);
  }
}

/** ioredis sends EVALSHA, and the script itself (EVAL) the first time on a connection or after NOSCRIPT. */
function defineScript(client: RedisClient, name: string, numberOfKeys: number, lua: string): Script {
  client.defineCommand(name, { numberOfKeys, lua });
  const command = (client as unknown as Record<string, Script>)[name]!;
  return (...keysAndArgs) => command.apply(client, keysAndArgs);
}

/** A counter's state from a script's used and ms left (a script always sets both for a counter it touched). */
function countOf(used: number | null | undefined, msLeft: number | null | undefined, now: number): Count {
  return { used: Math.max(0, used ?? 0), resetAt: now + (msLeft ?? 0) };
}
