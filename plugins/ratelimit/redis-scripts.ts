// The Lua scripts of the Redis backend, one per phase of a call, each one atomic step and one round trip
// (EVALSHA; ioredis sends the script itself the first time on a connection). An organization's counters
// are three keys, `<redis.key_prefix>ratelimit:requests:{<org id>}` and the same with `input` and `output`:
// plain integers that expire with their window. The org id in braces is a Redis Cluster hash tag, so the three keys of one
// organization live in one slot and a script may touch them together.

/** The key of one counter of an organization. */
export function counterKey(keyPrefix: string, kind: 'requests' | 'input' | 'output', orgId: string): string {
  return `${keyPrefix}ratelimit:${kind}:{${orgId}}`;
}

/**
 * Adds to a counter and returns what its window has used and the milliseconds left of it. A key without
 * an expiry (new, INCRBY made it) starts a window of ARGV[1] seconds: fixed windows from the first use.
 */
const ADD = `
local windowSeconds = tonumber(ARGV[1])
local function add(key, amount)
  local used = redis.call('INCRBY', key, amount)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('EXPIRE', key, windowSeconds)
    ttl = windowSeconds * 1000
  end
  return used, ttl
end
`;

/**
 * The start of a call. KEYS: requests, input, output; ARGV: window seconds, requests to add (1, or 0 to
 * read). Reading is adding 0, which starts the window too: an organization's three windows start together.
 * Returns used and ms left for each counter, in that order.
 */
export const OPEN = `${ADD}
local requestsUsed, requestsTtl = add(KEYS[1], ARGV[2])
local inputUsed, inputTtl = add(KEYS[2], 0)
local outputUsed, outputTtl = add(KEYS[3], 0)
return {requestsUsed, requestsTtl, inputUsed, inputTtl, outputUsed, outputTtl}
`;

/**
 * The input estimate. KEYS: input; ARGV: window seconds, the estimate, the limit. Past the limit, the
 * estimate is given back at once, so that a refused call takes nothing from the window. Returns 1 if
 * admitted (else 0), then the counter's used (after the give-back) and ms left.
 */
export const CHARGE_INPUT = `${ADD}
local used, ttl = add(KEYS[1], ARGV[2])
if used > tonumber(ARGV[3]) then
  return {0, redis.call('DECRBY', KEYS[1], ARGV[2]), ttl}
end
return {1, used, ttl}
`;

/**
 * The settlement. KEYS: input, output; ARGV: window seconds, the input adjustment, the output tokens, each
 * '' to leave that counter alone. Returns used and ms left for input, then output; nil for one left alone.
 */
export const SETTLE = `${ADD}
local reply = {false, false, false, false}
if ARGV[2] ~= '' then reply[1], reply[2] = add(KEYS[1], ARGV[2]) end
if ARGV[3] ~= '' then reply[3], reply[4] = add(KEYS[2], ARGV[3]) end
return reply
`;
