import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { GatewayError, type ErrorCode } from './errors.js';

/** The one Ajv instance for the gateway's own schemas (requests, config). */
export const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true });

/** A request validator compiled once at start; failures become a 400 that names the field. */
export function compileValidator<T>(schema: object, code: ErrorCode = 'GW_ERR_REQUEST_INVALID'): (value: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (value: unknown): T => {
    if (validate(value)) return value as T;
    const first = validate.errors?.[0];
    if (first === undefined) throw new GatewayError(code, 'The request body is invalid.');
    throw describe(first, code);
  };
}

/**
 * A request schema whose top-level numeric fields get a ceiling from the config (token limits are the
 * model's context, not a constant). The copy has no `$id`, so several gateways in one process (tests)
 * can each compile their own.
 */
export function withMaxima<S extends { $id?: string; properties: object }>(schema: S, maxima: Record<string, number>): Omit<S, '$id'> {
  const { $id, ...copy } = structuredClone(schema);
  void $id;
  const properties = copy.properties as Record<string, { maximum?: number }>;
  for (const [field, maximum] of Object.entries(maxima)) {
    const property = properties[field];
    if (property === undefined) throw new Error(`the schema has no property '${field}' to bound`);
    property.maximum = maximum;
  }
  return copy;
}

/** `/messages/0/role` → `messages[0].role` (the form SDK users see in their code). */
export function paramOf(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let param = '';
  for (const part of parts) {
    const unescaped = part.replace(/~1/g, '/').replace(/~0/g, '~');
    param += /^\d+$/.test(unescaped) ? `[${unescaped}]` : param === '' ? unescaped : `.${unescaped}`;
  }
  return param;
}

function describe(error: ErrorObject, code: ErrorCode): GatewayError {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const param = paramOf(error.instancePath, String(params.missingProperty));
      return new GatewayError(code, `Missing required field '${param}'.`, param);
    }
    case 'additionalProperties': {
      const param = paramOf(error.instancePath, String(params.additionalProperty));
      return new GatewayError(code, `Unknown field '${param}'.`, param);
    }
    case 'type': {
      const param = paramOf(error.instancePath) || 'body';
      return new GatewayError(code, `Invalid type for '${param}': expected ${String(params.type).replace(',', ' or ')}.`, param);
    }
    case 'enum': {
      const param = paramOf(error.instancePath);
      const allowed = (params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ');
      return new GatewayError(code, `Invalid value for '${param}': must be one of ${allowed}.`, param);
    }
    case 'const': {
      const param = paramOf(error.instancePath);
      return new GatewayError(code, `Invalid value for '${param}': must be ${JSON.stringify(params.allowedValue)}.`, param);
    }
    default: {
      const param = paramOf(error.instancePath) || 'body';
      return new GatewayError(code, `Invalid value for '${param}': ${error.message ?? 'not allowed'}.`, param);
    }
  }
}
