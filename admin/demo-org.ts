import { openStore, type StoreOptions } from '../store/store.js';

const DEMO_ORG = 'demo';
const DEMO_CREDITS_MICROS = 10_000_000;

/**
 * On a first start with an empty store: a demo organization with 10 credits and one key, returned
 * so it can be shown once. With any organization already there, nothing (undefined). Never on a
 * shared store (PostgreSQL): there several nodes start at once, each would find it empty, and a
 * fleet's organizations are made with the CLI; the caller says so.
 */
export async function createDemoKeyIfEmpty(options: StoreOptions): Promise<string | undefined> {
  if (options.postgres !== undefined) return undefined;
  const store = await openStore(options);
  try {
    if ((await store.orgs.list()).length > 0) return undefined;
    try {
      await store.orgs.create(DEMO_ORG);
    } catch (error) {
      // Nodes started together on a new data directory: another one made it first.
      if ((await store.orgs.list()).length > 0) return undefined;
      throw error;
    }
    await store.orgs.addCredits(DEMO_ORG, DEMO_CREDITS_MICROS, 'demo organization');
    return (await store.keys.create(DEMO_ORG, 'demo')).key;
  } finally {
    await store.close();
  }
}
