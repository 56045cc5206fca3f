// Arguments for a simulated tool call, built from the tool's JSON schema. For each property, a
// `prop=value` pair in the user's text gives the value, parsed to the property's type; `prop=-`
// (unquoted) leaves the property out; otherwise a default: strings "example", numbers and integers 42,
// booleans true, enums their first value, arrays [], objects built the same way from their own
// properties (defaults only).

type Schema = Record<string, unknown>;

/** `prop=-`: the property is left out, as a model leaves out an optional one whose absence means something (Claude Code's Agent `isolation`). */
const LEFT_OUT = Symbol('left out');
type Given = string | typeof LEFT_OUT;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function buildArguments(parameters: Schema | null | undefined, userText: string): Record<string, unknown> {
  const pairs = userPairs(userText);
  return buildObject(parameters ?? {}, pairs);
}

function buildObject(schema: Schema, pairs: ReadonlyMap<string, Given> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = isSchema(schema.properties) ? schema.properties : {};
  for (const [name, sub] of Object.entries(properties)) {
    const propSchema = isSchema(sub) ? sub : {};
    const given = pairs?.get(name);
    if (given === LEFT_OUT) continue;
    const parsed = given === undefined ? undefined : parseGiven(propSchema, given);
    out[name] = parsed === undefined ? defaultFor(propSchema) : parsed;
  }
  return out;
}

function schemaType(schema: Schema): string | undefined {
  const alternative = [schema.anyOf, schema.oneOf].find(Array.isArray)?.find(isSchema);
  if (schema.type === undefined && alternative) return schemaType(alternative);
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t): t is string => typeof t === 'string');
    return types.find((t) => t !== 'null') ?? types[0];
  }
  if (isSchema(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function defaultFor(schema: Schema): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schemaType(schema)) {
    case 'number':
    case 'integer':
      return 42;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return buildObject(schema, null);
    case 'null':
      return null;
    default:
      return 'example';
  }
}

/** The typed value of a `prop=value` pair, or undefined when it does not fit the schema. */
function parseGiven(schema: Schema, raw: string): unknown {
  let value: unknown;
  switch (schemaType(schema)) {
    case 'number':
      value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value)) return undefined;
      break;
    case 'integer':
      value = Number(raw);
      if (raw.trim() === '' || !Number.isInteger(value)) return undefined;
      break;
    case 'boolean':
      if (!/^(true|false)$/i.test(raw)) return undefined;
      value = raw.toLowerCase() === 'true';
      break;
    case 'array':
    case 'object': {
      const json = tryJson(raw);
      const wantArray = schemaType(schema) === 'array';
      if (wantArray ? !Array.isArray(json) : !isSchema(json)) return undefined;
      value = json;
      break;
    }
    default:
      value = raw;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return undefined;
  return value;
}

/**
 * `name=value` pairs of a text. A value is a double-quoted JSON string, a JSON array or object
 * without spaces, or a run of non-space characters whose one trailing , ; . ! or ? is dropped;
 * an unquoted `-` leaves the property out (`"-"` is the string).
 */
function userPairs(text: string): Map<string, Given> {
  const pairs = new Map<string, Given>();
  const pattern = /(?<![\w.-])([\w.-]+)=("(?:[^"\\]|\\.)*"|\S+)/g;
  for (const match of text.matchAll(pattern)) {
    const [, name, rawValue] = match;
    if (name === undefined || rawValue === undefined || pairs.has(name)) continue;
    if (rawValue === '-') {
      pairs.set(name, LEFT_OUT);
      continue;
    }
    let value = rawValue;
    if (value.startsWith('"')) {
      const decoded = tryJson(value);
      value = typeof decoded === 'string' ? decoded : value;
    } else if (!/^[[{]/.test(value)) {
      value = value.replace(/[,;.!?]$/, '');
    }
    pairs.set(name, value);
  }
  return pairs;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
