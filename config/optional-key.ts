import type { JSONSchemaType } from 'ajv';

/**
 * The schema of an optional key (`key?: T` in the interface a `JSONSchemaType` checks). Ajv's type asks
 * such a key for `nullable: true`, which would let `null` through (a YAML `key:` with no value); what we
 * mean is "absent or a T", so the schema is returned unchanged and only its type says optional. The
 * `enum`, if any, is checked against T.
 */
export function optional<T>(
  schema: JSONSchemaType<T> & { enum?: readonly T[] },
): JSONSchemaType<T | undefined> & { nullable: true; enum?: readonly (T | null)[] } {
  return schema as JSONSchemaType<T | undefined> & { nullable: true };
}
