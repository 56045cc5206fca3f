// One worker of a node of several (bin/workers.ts is the primary): the whole gateway, with the node's
// shared counters and revocations reached through the primary. It tells the primary where it listens, and
// stops when told (drain, then cut), on its own signals as a node alone does, or when the primary is gone.
import { PrimaryLink } from '../cluster/primary-link.js';
import type { LoadedConfig } from '../config/load.js';
import { startGateway } from './start-gateway.js';
import { onStopSignals } from './stop-signals.js';

export async function runWorker(loaded: LoadedConfig): Promise<void> {
  const primary = new PrimaryLink(process);
  const gateway = await startGateway(loaded, { primary });
  // A terminal's Ctrl-C reaches the whole process group: the first signal drains (as the primary's order
  // does, which then changes nothing), a second cuts, as in a node alone.
  const drain = onStopSignals(gateway);
  primary.onOrder((order) => (order === 'drain' ? drain() : gateway.cutDrain()));
  process.on('disconnect', drain);
  const urls: Record<string, string> = { gateway: gateway.url };
  if (gateway.adminUrl !== undefined) urls.admin = gateway.adminUrl;
  if (gateway.consoleUrl !== undefined) urls.console = gateway.consoleUrl;
  primary.started(urls);
}
