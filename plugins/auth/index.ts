// The auth plugin: every API route needs a key, as `x-api-key: K` or `Authorization: Bearer K` (the probes
// /health and /ready reach no plugin).
// Keys are looked up by their SHA-256 through a cache (per raw key, key-cache.ts) whose entries live at
// most `cache_ttl_ms`, so a revocation takes effect within that time on every gateway node sharing the
// store, and at once where it is announced on the revocation bus (this node, or every node with Redis).
// The cache holds each key with the caps that apply to it (its own, its member's) and its organization's
// service-tier settings: a change of either is announced on the same bus, and otherwise seen within
// `cache_ttl_ms` too.
// A batch line (exchange.batchLine) brings no key: it runs as the key that made its batch, read by id.
import type { JSONSchemaType } from 'ajv';
import { optional } from '../../config/optional-key.js';
import { GatewayError } from '../../core/errors.js';
import type { Exchange } from '../../core/exchange.js';
import type { Plugin } from '../../core/plugin.js';
import { definePlugin } from '../plugin-module.js';
import { dbSystemOf, storeSpan } from '../store-span.js';
import { orStoreUnavailable } from '../store-unavailable.js';
import type { CallerCaps } from '../../store/cap-rules.js';
import { memberOf } from '../../store/caps.js';
import { StoreError } from '../../store/errors.js';
import type { ApiKeyRecord } from '../../store/keys.js';
import { NO_TIER_SETTINGS, type OrgServiceTiers } from '../../store/org-service-tiers.js';
import type { Store } from '../../store/store.js';
import { KeyCache } from './key-cache.js';

type KeyWithCaps = ApiKeyRecord & { caps: CallerCaps; serviceTiers: OrgServiceTiers };

declare module '../../core/exchange.js' {
  interface ExchangeLocals {
    /** Who is calling: set by the auth plugin. */
    caller: Caller;
  }
}

/** Who is calling: the key's organization and id, the member who made the key, and the caps that apply. */
export interface Caller {
  orgId: string;
  keyId: string;
  keyName: string;
  /** The member (an e-mail) who made the key; none for keys of the operator or the CLI. */
  member?: string;
  caps: CallerCaps;
  /** The operator's service-tier settings for the organization (the meter resolves the request's tier with them). */
  serviceTiers: OrgServiceTiers;
}

interface AuthOptions {
  cache_ttl_ms?: number;
}

export const optionsSchema: JSONSchemaType<AuthOptions> = {
  type: 'object',
  additionalProperties: false,
  properties: { cache_ttl_ms: optional({ type: 'integer', minimum: 0, maximum: 5000 }) },
};

export const authPlugin = definePlugin<AuthOptions>({
  optionsSchema,
  async create(options, context): Promise<Plugin> {
    const ttlMs = options.cache_ttl_ms ?? 2000;
    const store = await context.store();
    const dbSystem = dbSystemOf(store);
    /** A key's record and its caps: two reads on a miss of the cache. */
    const findWithCaps = async (hash: string): Promise<KeyWithCaps | undefined> =>
      withCaps(store, await store.keys.findByHash(hash));
    const cache = new KeyCache<KeyWithCaps>(
      (hash, trace) =>
        trace ? storeSpan(trace, 'key lookup', dbSystem, () => findWithCaps(hash)) : findWithCaps(hash),
      ttlMs,
      context.now,
    );
    const unsubscribe = context.revocations.subscribe((keyId) => cache.revoke(keyId));

    /** A batch line's key, by its id: read at each line, so a key revoked since stops the lines still to run. */
    const batchKey = async (keyId: string): Promise<KeyWithCaps | undefined> => {
      const record = await store.keys.get(keyId).catch((error: unknown) => {
        if (error instanceof StoreError && error.code === 'GW_ERR_STORE_KEY_NOT_FOUND') return undefined;
        throw error;
      });
      return withCaps(store, record);
    };

    /** Who is calling: the key's org and id in the exchange, or a 401. */
    const identify = async (exchange: Exchange): Promise<void> => {
      let record: KeyWithCaps | undefined;
      if (exchange.batchLine !== undefined) {
        record = await orStoreUnavailable(batchKey(exchange.batchLine.keyId));
        if (record === undefined || record.status !== 'active')
          throw new GatewayError(
            'GW_ERR_AUTH_INVALID_KEY',
            'invalid API key: the key that made this batch has been revoked since.',
          );
      } else {
        const presented = presentedKey(exchange);
        if (presented === undefined)
          throw new GatewayError(
            'GW_ERR_AUTH_MISSING_KEY',
            'Missing API key: send it as x-api-key or Authorization: Bearer.',
          );
        const { key, header } = presented;
        record = await orStoreUnavailable(cache.lookup(key, exchange.trace));
        if (record === undefined || record.status !== 'active')
          throw new GatewayError(
            'GW_ERR_AUTH_INVALID_KEY',
            `invalid API key (${header}): the key is unknown or revoked.`,
          );
      }
      const member = memberOf(record.createdBy);
      exchange.locals.caller = {
        orgId: record.orgId,
        keyId: record.id,
        keyName: record.name,
        ...(member === undefined ? {} : { member }),
        caps: record.caps,
        serviceTiers: record.serviceTiers,
      };
      exchange.logFields.org = record.orgId;
      exchange.logFields.key_id = record.id;
      store.keys.touch(record.id);
    };

    return {
      name: 'auth',
      onRequest: identify,
      // A WebSocket is refused on its upgrade when the key is bad; each of its requests is checked again
      // (onRequest), so a key revoked while the connection is open stops working at the next request.
      onConnect: identify,
      close() {
        unsubscribe();
        cache.close();
      },
    };
  },
});

/** The key from `x-api-key`, else from `Authorization: Bearer`, with the header it came in (a 401 names it). */
function presentedKey(exchange: Exchange): { key: string; header: 'x-api-key' | 'Authorization: Bearer' } | undefined {
  const apiKey = exchange.req.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') return { key: apiKey.trim(), header: 'x-api-key' };
  const authorization = exchange.req.headers.authorization;
  // `Bearer`, any case, then whitespace: what follows, trimmed, is the key (trim drops what \s matches).
  if (typeof authorization === 'string' && BEARER.test(authorization))
    return { key: authorization.slice(6).trim(), header: 'Authorization: Bearer' };
  return undefined;
}

const BEARER = /^bearer\s/i;

/** An active key with its caps and its organization's tier settings (two more reads); any other record as it is. */
async function withCaps(store: Store, record: ApiKeyRecord | undefined): Promise<KeyWithCaps | undefined> {
  if (record === undefined || record.status !== 'active')
    return record && { ...record, caps: {}, serviceTiers: NO_TIER_SETTINGS };
  const [caps, serviceTiers] = await Promise.all([
    store.caps.ofKey(record.orgId, record.id, record.createdBy),
    store.orgs.serviceTiersOf(record.orgId),
  ]);
  return { ...record, caps, serviceTiers };
}
