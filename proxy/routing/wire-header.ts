import type { IncomingHttpHeaders } from 'node:http';
import type { WireProfile } from '../../core/dialect.js';
import { GatewayError } from '../../core/errors.js';
import { negotiatedWire, type WireSetting } from './wire-negotiation.js';

/**
 * The wire profile of a request (docs/wire.md): the one `x-gateway-wire` asks for, else the config's when it
 * forces one, else the one negotiated from the client's name, else `spec`.
 */
export function wireOf(headers: IncomingHttpHeaders, setting: WireSetting): WireProfile {
  const header = headers['x-gateway-wire'];
  if (header === undefined) return negotiatedWire(headers, setting);
  if (header === 'spec' || header === 'openai') return header;
  throw new GatewayError(
    'GW_ERR_REQUEST_BAD_HEADER',
    "Invalid value for header 'x-gateway-wire': must be 'spec' or 'openai'.",
    'x-gateway-wire',
  );
}
