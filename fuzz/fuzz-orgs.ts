// The organizations a fuzz run bills: one with plenty of credits, one with a few (some holds fit, some get
// 402), one with none, and a revoked key. The balance invariant must hold for each after the run.
import type { Store } from '../store/store.js';
import type { Credentials } from './fuzz-case.js';

export const FUZZ_ORGS = { rich: 'fuzz-rich', poor: 'fuzz-poor', broke: 'fuzz-broke' } as const;

/** 1,000,000 credits. */
const RICH_MICROS = 1_000_000_000_000;
/** 0.01 credits: a hold for a long answer does not fit, a short one does. */
const POOR_MICROS = 10_000;

export async function createFuzzOrgs(store: Store): Promise<Credentials> {
  await store.orgs.create(FUZZ_ORGS.rich);
  await store.orgs.addCredits(FUZZ_ORGS.rich, RICH_MICROS, 'fuzz');
  await store.orgs.create(FUZZ_ORGS.poor);
  await store.orgs.addCredits(FUZZ_ORGS.poor, POOR_MICROS, 'fuzz');
  await store.orgs.create(FUZZ_ORGS.broke);
  const revoked = await store.keys.create(FUZZ_ORGS.rich, 'fuzz revoked');
  await store.keys.revoke(revoked.record.id);
  return {
    rich: (await store.keys.create(FUZZ_ORGS.rich, 'fuzz')).key,
    poor: (await store.keys.create(FUZZ_ORGS.poor, 'fuzz')).key,
    broke: (await store.keys.create(FUZZ_ORGS.broke, 'fuzz')).key,
    revoked: revoked.key,
  };
}
