// Reads the Prometheus text exposition format (what GET /metrics answers) into samples, for tests
// that compare the counters with what clients received and what the ledger holds.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;

/** Every sample line (comments and blank lines skipped); throws on a line that is neither. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`);
    samples.push({ name: match[1]!, labels: labelsOf(match[2] ?? ''), value: Number(match[3]) });
  }
  return samples;
}

function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (match === null) throw new Error(`bad labels at ${at}: ${text}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_all, char: string) => (char === 'n' ? '\n' : char));
  }
  return labels;
}

/** The samples of a metric whose labels include `labels`. */
export function samplesOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The sum of those samples' values (0 when there are none). */
export function sumOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samplesOf(samples, name, labels).reduce((total, sample) => total + sample.value, 0);
}

/** GET {metricsUrl}/metrics, parsed. */
export async function scrape(metricsUrl: string): Promise<Sample[]> {
  const response = await fetch(`${metricsUrl}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}
