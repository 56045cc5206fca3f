// A JSON document as the fuzzer edits it: objects are lists of entries (so a key can repeat and
// `__proto__` is an ordinary key), and a raw node is JSON text written as is (number literals such as
// 1E400 or a 30-digit integer, nesting 20,000 deep), so the bytes sent are exactly the ones meant.

export type JsonNode = null | boolean | number | string | JsonNode[] | ObjectNode | RawNode;

export interface ObjectNode {
  kind: 'object';
  entries: [string, JsonNode][];
}

export interface RawNode {
  kind: 'raw';
  text: string;
}

export const raw = (text: string): RawNode => ({ kind: 'raw', text });
export const object = (entries: [string, JsonNode][] = []): ObjectNode => ({ kind: 'object', entries });

export function isObject(node: JsonNode): node is ObjectNode {
  return typeof node === 'object' && node !== null && !Array.isArray(node) && node.kind === 'object';
}

/** A plain JSON value (the corpus) as a tree. */
export function fromValue(value: unknown): JsonNode {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string')
    return value;
  if (Array.isArray(value)) return value.map(fromValue);
  if (typeof value === 'object') return object(Object.entries(value).map(([key, item]) => [key, fromValue(item)]));
  throw new Error(`not a JSON value: ${typeof value}`);
}

/** A deep copy: a node from a shared list must not be shared by two trees (or twice by one). */
export function copyNode(node: JsonNode): JsonNode {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map(copyNode);
  if (node.kind === 'raw') return node;
  return object(node.entries.map(([key, item]) => [key, copyNode(item)]));
}

export function toText(node: JsonNode): string {
  if (node === null || typeof node !== 'object') return JSON.stringify(node);
  if (Array.isArray(node)) return `[${node.map(toText).join(',')}]`;
  if (node.kind === 'raw') return node.text;
  return `{${node.entries.map(([key, item]) => `${JSON.stringify(key)}:${toText(item)}`).join(',')}}`;
}

/** A place in the tree: the container, the index of the item (or entry) in it, and its path for messages. */
export interface Location {
  container: JsonNode[] | ObjectNode;
  index: number;
  path: string;
}

/** Every place below the root, parents before children. */
export function locations(root: JsonNode): Location[] {
  const found: Location[] = [];
  const visit = (node: JsonNode, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        found.push({ container: node, index, path: `${path}[${index}]` });
        visit(item, `${path}[${index}]`);
      });
    } else if (isObject(node)) {
      node.entries.forEach(([key, item], index) => {
        const itemPath = path === '' ? key : `${path}.${key}`;
        found.push({ container: node, index, path: itemPath });
        visit(item, itemPath);
      });
    }
  };
  visit(root, '');
  return found;
}

export function valueAt(location: Location): JsonNode {
  return Array.isArray(location.container)
    ? location.container[location.index]!
    : location.container.entries[location.index]![1];
}

export function replaceAt(location: Location, node: JsonNode): void {
  if (Array.isArray(location.container)) location.container[location.index] = node;
  else location.container.entries[location.index]![1] = node;
}

export function removeAt(location: Location): void {
  if (Array.isArray(location.container)) location.container.splice(location.index, 1);
  else location.container.entries.splice(location.index, 1);
}

/** The value of a key of an object (the first entry with it). */
export function field(node: JsonNode, key: string): JsonNode | undefined {
  return isObject(node) ? node.entries.find(([name]) => name === key)?.[1] : undefined;
}

/** Sets a key of an object: the first entry with it, else a new last entry. */
export function setField(node: ObjectNode, key: string, value: JsonNode): void {
  const entry = node.entries.find(([name]) => name === key);
  if (entry) entry[1] = value;
  else node.entries.push([key, value]);
}
