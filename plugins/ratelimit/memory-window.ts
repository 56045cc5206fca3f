// The in-process backend: each gateway process counts alone (one node, or tests). With several nodes
// behind a balancer, each admits the full limit, so together they admit N times it: use Redis there.
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { LimiterWindow, UNREACHABLE_POINTS } from './limiter-window.js';
import type { RateWindow } from './window.js';

export function memoryWindow(windowSeconds: number): RateWindow {
  const limiter = (kind: string): RateLimiterMemory =>
    new RateLimiterMemory({ keyPrefix: kind, points: UNREACHABLE_POINTS, duration: windowSeconds });
  return new LimiterWindow(
    { requests: limiter('requests'), input: limiter('input'), output: limiter('output') },
    windowSeconds,
  );
}
