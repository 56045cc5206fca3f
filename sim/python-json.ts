// JSON the way Python's json.dumps(x, ensure_ascii=False) writes it, with ", " and ": " between
// items: the form Qwen3 emits tool calls in and vLLM's tool parser returns arguments in.

export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object') {
    const items = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`);
    return `{${items.join(', ')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value))
    return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  return JSON.stringify(value) ?? 'null';
}
