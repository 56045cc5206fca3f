// A child process of store-concurrent-start.test.ts: loads the store code, prints "ready", and when a
// line arrives on stdin opens the store in the data directory given as its argument, so that several
// processes open it at the same moment. `open`: prints the migrations it applied (JSON); `demo`: opens
// it as `gateway start` does, printing whether it made the demo organization. Exits 0; or 1 with the error.
import { createDemoKeyIfEmpty } from '../../admin/demo-org.js';
import { openStore } from '../../store/store.js';

const [mode, dataDir] = process.argv.slice(2) as ['open' | 'demo', string];

async function open(): Promise<unknown> {
  if (mode === 'demo') return (await createDemoKeyIfEmpty({ dataDir })) !== undefined;
  const store = await openStore({ dataDir });
  await store.close();
  return store.migrated;
}

process.stdin.once('data', () => {
  open().then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
});
process.stdout.write('ready\n');
