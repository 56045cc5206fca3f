// What one Prometheus scrape costs the gateway: GET /metrics in a row, after the load (so every series the load made
// is there), the process's CPU time per scrape. A scrape every 15 s spreads this over every request of those 15 s.
import { request } from 'undici';
import type { Target } from './targets.js';

export interface ScrapeResult {
  target: string;
  scrapes: number;
  /** Gateway CPU per scrape, microseconds. */
  cpuUsPerScrape: number;
  /** Sample lines (not comments) in one answer, and its size. */
  samples: number;
  bytes: number;
}

export async function measureScrape(target: Target & { metricsUrl: string }, scrapes = 50): Promise<ScrapeResult> {
  let text = await scrape(target.metricsUrl);
  const cpuFrom = target.server.cpuMs();
  for (let i = 0; i < scrapes; i++) text = await scrape(target.metricsUrl);
  const cpuUsPerScrape = ((target.server.cpuMs() - cpuFrom) * 1000) / scrapes;
  const samples = text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
  return { target: target.name, scrapes, cpuUsPerScrape, samples, bytes: Buffer.byteLength(text) };
}

async function scrape(url: string): Promise<string> {
  const response = await request(url);
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}`);
  return text;
}
