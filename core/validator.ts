import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajv } from '../validation/ajv.js';
import { paramOf } from '../validation/field-path.js';
import { GatewayError, type ErrorCode } from './errors.js';
import { quoted } from './printable.js';

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
export function withMaxima<S extends { $id?: string; properties: object }>(
  schema: S,
  maxima: Record<string, number>,
): Omit<S, '$id'> {
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

function describe(error: ErrorObject, code: ErrorCode): GatewayError {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const param = paramOf(error.instancePath, String(params.missingProperty));
      return new GatewayError(code, `Missing required field ${quoted(param)}.`, param);
    }
    case 'additionalProperties': {
      const param = paramOf(error.instancePath, String(params.additionalProperty));
      return new GatewayError(code, `Unknown field ${quoted(param)}.`, param);
    }
    case 'type': {
      const param = paramOf(error.instancePath) || 'body';
      return new GatewayError(
        code,
        `Invalid type for ${quoted(param)}: expected ${String(params.type).replace(',', ' or ')}.`,
        param,
      );
    }
    case 'enum': {
      const param = paramOf(error.instancePath);
      const allowed = (params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ');
      return new GatewayError(code, `Invalid value for ${quoted(param)}: must be one of ${allowed}.`, param);
    }
    case 'const': {
      const param = paramOf(error.instancePath);
      return new GatewayError(
        code,
        `Invalid value for ${quoted(param)}: must be ${JSON.stringify(params.allowedValue)}.`,
        param,
      );
    }
    default: {
      const param = paramOf(error.instancePath) || 'body';
      return new GatewayError(code, `Invalid value for ${quoted(param)}: ${error.message ?? 'not allowed'}.`, param);
    }
  }
}
