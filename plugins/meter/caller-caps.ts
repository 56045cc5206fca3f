// GET /v1/me/caps: the caller's own caps and what it has used against them, read with its API key (a
// script can watch its budget). The key's caps, and its member's when a member made the key, with the
// spend of the current day, week and month (settled, plus the holds of requests in flight), the requests
// in flight, and when each period resets. Read from the store at each call, not from the auth cache.
import type { JsonObject } from '../../core/canonical.js';
import type { Exchange } from '../../core/exchange.js';
import { GatewayError } from '../../core/errors.js';
import { capsJson, SPEND_PERIODS, type Caps, type CapScope } from '../../store/cap-rules.js';
import type { CapStore } from '../../store/caps.js';

declare module '../../core/capabilities.js' {
  interface PluginCapabilities {
    /** GET /v1/me/caps's body for the exchange's caller. */
    'meter.callerCaps': (exchange: Exchange) => Promise<JsonObject>;
  }
}

export async function callerCapsBody(caps: CapStore, exchange: Exchange, now: number): Promise<JsonObject> {
  const caller = exchange.locals.caller;
  if (caller === undefined)
    throw new GatewayError('GW_ERR_INTERNAL', 'GET /v1/me/caps has no caller: the auth plugin must be in the chain.');
  const { orgId, keyId, keyName, member } = caller;
  const current = await caps.ofKey(orgId, keyId, member ?? null);
  const scopeJson = async (scope: CapScope, scopeCaps: Caps | undefined): Promise<JsonObject> => {
    const use = await caps.use(orgId, scope, now);
    const useJson: JsonObject = { concurrent_requests: use.inFlight };
    for (const period of SPEND_PERIODS) {
      useJson[`${period}_micros`] = use.spentMicros[period];
      useJson[`${period}_resets_at`] = new Date(use.resetsAt[period]).toISOString();
    }
    return { caps: capsJson(scopeCaps), use: useJson };
  };
  return {
    object: 'caller_caps',
    organization: orgId,
    key: { id: keyId, name: keyName, ...(await scopeJson({ kind: 'key', keyId }, current.key)) },
    member:
      member === undefined
        ? null
        : { email: member, ...(await scopeJson({ kind: 'member', email: member }, current.member?.caps)) },
  };
}
