// How a replica is named in metrics and logs (kept apart from metrics.ts, so naming one loads no prom-client).

/** A replica's label: its URL without credentials, query or fragment (bounded by the configuration). */
export function replicaLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
