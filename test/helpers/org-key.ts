// An organization made for a test, in the state the test needs: its credits, its lifetime spend (which
// picks its rate-limit tier), and one API key.
import type { Store } from '../../store/store.js';

export interface OrgWithKey {
  id: string;
  key: string;
}

export async function orgWithKey(
  store: Store,
  name: string,
  state: { credits?: number; spentCredits?: number } = {},
): Promise<OrgWithKey> {
  const org = await store.orgs.create(name);
  if (state.credits !== undefined && state.credits > 0) await store.orgs.addCredits(org.id, state.credits * 1_000_000);
  if (state.spentCredits !== undefined && state.spentCredits > 0)
    await store.db
      .updateTable('orgs')
      .set({ spent_micros: state.spentCredits * 1_000_000 })
      .where('id', '=', org.id)
      .execute();
  return { id: org.id, key: (await store.keys.create(org.id, 'tests')).key };
}
