import type { WireProfile } from './dialect.js';
import { GatewayError } from './errors.js';

/** The wire profile a request asks for in `x-gateway-wire`, else the deployment's (docs/wire.md). */
export function wireOf(header: string | string[] | undefined, fallback: WireProfile): WireProfile {
  if (header === undefined) return fallback;
  if (header === 'spec' || header === 'openai') return header;
  throw new GatewayError(
    'GW_ERR_REQUEST_BAD_HEADER',
    "Invalid value for header 'x-gateway-wire': must be 'spec' or 'openai'.",
    'x-gateway-wire',
  );
}
