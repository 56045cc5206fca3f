// An organization with alert rules on a fresh store of the dialect under test, and the alerts' parts
// over it on a test clock: what the alert-check and webhook-sender tests start from.
import type { Test } from 'tap';
import { AlertCheck } from '../../../../plugins/alerts/alert-check.js';
import { WebhookSender, type RetryPolicy } from '../../../../plugins/alerts/webhook-sender.js';
import type { AlertEvent } from '../../../../store/alert-events.js';
import { alertStore, type AlertStore } from '../../../../store/alert-store.js';
import { CapStore } from '../../../../store/caps.js';
import { openStore, type Store, type StoreOptions } from '../../../../store/store.js';
import { WebhookSeal } from '../../../../store/webhook-seal.js';
import { TestClock } from '../../../helpers/clock.js';
import { freshStoreOptions } from '../../../helpers/test-store.js';

export const SEAL = new WebhookSeal(Buffer.alloc(32, 7));
export const POLICY: RetryPolicy = { maxAttempts: 4, backoffBaseMs: 10_000, backoffMaxMs: 60_000, timeoutMs: 5_000 };

/** One node's view: its own store connection, alert parts, check and sender, on the shared clock. */
export interface AlertNode {
  store: Store;
  alerts: AlertStore;
  check: AlertCheck;
  sender: WebhookSender;
  /** The events this node fired (its e-mails). */
  fired: AlertEvent[];
}

export interface AlertFixture {
  clock: TestClock;
  options: StoreOptions;
  node: AlertNode;
  orgId: string;
  keyId: string;
  /** Another node on the same store (a fleet). */
  anotherNode(): Promise<AlertNode>;
  /** Sets the organization's balance, as spending or a top-up would. */
  setBalance(micros: number): Promise<void>;
}

export async function alertFixture(t: Test): Promise<AlertFixture> {
  const clock = new TestClock();
  const options = await freshStoreOptions();
  const openNode = async (): Promise<AlertNode> => {
    const store = await openStore(options);
    t.teardown(() => store.close());
    const alerts = alertStore(store.db, clock.now);
    const fired: AlertEvent[] = [];
    const check = new AlertCheck({
      alerts,
      orgs: store.orgs,
      caps: new CapStore(store.db),
      fired: (event) => fired.push(event),
      now: clock.now,
    });
    const sender = new WebhookSender({
      deliveries: alerts.deliveries,
      seal: SEAL,
      policy: POLICY,
      leaseMs: 60_000,
      batch: 50,
      allowPrivateNetworks: true,
      now: clock.now,
    });
    return { store, alerts, check, sender, fired };
  };
  const node = await openNode();
  const org = await node.store.orgs.create('acme', [
    { email: 'ada@acme.example', role: 'admin' },
    { email: 'bob@acme.example', role: 'member' },
  ]);
  const { record } = await node.store.keys.create(org.id, 'laptop', { who: 'bob@acme.example', address: null });
  return {
    clock,
    options,
    node,
    orgId: org.id,
    keyId: record.id,
    anotherNode: openNode,
    async setBalance(micros) {
      await node.store.db.updateTable('orgs').set({ balance_micros: micros }).where('id', '=', org.id).execute();
    },
  };
}
