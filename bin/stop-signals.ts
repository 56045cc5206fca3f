// How a running gateway stops on its signals: SIGTERM or SIGINT drains it (docs/deployment.md, "Node
// lifecycle"); a second one cuts what is left at once, which is still settled. Exit 0 once every request
// ended and everything closed, else 1. A node's primary and each of its workers stop the same way.
import type { RunningGateway } from './start-gateway.js';

/** Installs the signal handlers; returns the drain itself (once only), for a stop that comes another way. */
export function onStopSignals(gateway: Pick<RunningGateway, 'drain' | 'cutDrain' | 'log'>): () => void {
  let draining = false;
  const drain = (): void => {
    if (draining) return;
    draining = true;
    gateway.drain().then(
      () => process.exit(0),
      (error: unknown) => {
        gateway.log.error({ err: error }, 'the gateway did not stop cleanly');
        process.exit(1);
      },
    );
  };
  const onSignal = (): void => (draining ? gateway.cutDrain() : drain());
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return drain;
}
