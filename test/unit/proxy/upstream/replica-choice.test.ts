// Which replica takes a request (proxy/upstream/replica-choice.ts): one test per rule of docs/upstreams.md.
import t from 'tap';
import {
  chooseReplica,
  rendezvousOrder,
  type Candidate,
  type Routing,
} from '../../../../proxy/upstream/replica-choice.js';

const replica = (label: string, inFlight = 0, weight = 1, healthy = true): Candidate => ({
  label,
  inFlight,
  weight,
  healthy,
});
const three = (loads: number[] = [0, 0, 0], healthy: boolean[] = [true, true, true]): Candidate[] =>
  ['http://a:8000/v1', 'http://b:8000/v1', 'http://c:8000/v1'].map((label, i) =>
    replica(label, loads[i], 1, healthy[i]),
  );
const choose = (candidates: Candidate[], routing: Routing, key?: string, turn = 0, bound = 1.25) =>
  chooseReplica(candidates, { routing, key, bound, turn });

/**
 * Requests that never end, `count` of them, one at a time: each goes where the routing says and stays in flight
 * there. The replicas' loads at the end.
 */
function pile(candidates: Candidate[], count: number, routing: Routing, keyOf: (i: number) => string | undefined) {
  const loads = candidates.map((candidate) => candidate.inFlight);
  for (let i = 0; i < count; i++) {
    const now = candidates.map((candidate, index) => ({ ...candidate, inFlight: loads[index]! }));
    loads[choose(now, routing, keyOf(i), i).index]! += 1;
  }
  return loads;
}

t.test('least_outstanding: the healthy replica with the fewest requests in flight takes the request', async (t) => {
  t.equal(choose(three([3, 1, 2]), 'least_outstanding').index, 1);
  t.equal(choose(three([3, 1, 0], [true, true, false]), 'least_outstanding').index, 1, 'an unhealthy one is skipped');
});

t.test('least_outstanding: ties go in turn', async (t) => {
  t.same(
    [0, 1, 2, 3].map((turn) => choose(three([1, 1, 1]), 'least_outstanding', undefined, turn).index),
    [0, 1, 2, 0],
  );
});

t.test('least_outstanding: load is weighed by capacity, a replica of weight 2 takes twice the requests', async (t) => {
  const candidates = [replica('http://big/v1', 0, 2), replica('http://small/v1', 0, 1)];
  t.same(
    pile(candidates, 30, 'least_outstanding', () => undefined),
    [20, 10],
  );
});

t.test('no healthy replica: no choice (-1), the pool then takes the one back soonest', async (t) => {
  for (const routing of ['affinity', 'least_outstanding', 'round_robin'] as const)
    t.equal(choose(three([0, 0, 0], [false, false, false]), routing, 'k').index, -1, routing);
});

t.test('round_robin: the healthy replicas in turn, whatever their load', async (t) => {
  t.same(
    [0, 1, 2, 3].map((turn) => choose(three([9, 0, 0], [true, false, true]), 'round_robin', 'k', turn).index),
    [0, 2, 2, 0],
  );
});

t.test(
  'affinity: every request of a conversation goes to its replica while that one is within its share',
  async (t) => {
    const first = choose(three([2, 2, 2]), 'affinity', 'org\nkey:conversation-1');
    t.equal(first.affinity, 'hit');
    // Each holds at most ceil(1.25 × 5 / 3) = 3 of the 5 requests then in flight: every home is within its share.
    for (const loads of [
      [0, 0, 0],
      [2, 1, 1],
      [1, 2, 1],
      [1, 1, 2],
    ])
      t.equal(choose(three(loads), 'affinity', 'org\nkey:conversation-1').index, first.index, `loads ${loads}`);
  },
);

t.test('affinity: conversations spread over the replicas in proportion to their weights', async (t) => {
  const candidates = [replica('http://a/v1', 0, 2), replica('http://b/v1', 0, 1), replica('http://c/v1', 0, 1)];
  const homes = [0, 0, 0];
  for (let i = 0; i < 20_000; i++) homes[rendezvousOrder(candidates, `org\nkey:${i}`)[0]!]! += 1;
  t.ok(Math.abs(homes[0]! / 20_000 - 0.5) < 0.02, `weight 2 of 4 homes ${homes[0]} of 20,000`);
  t.ok(Math.abs(homes[1]! / 20_000 - 0.25) < 0.02, `weight 1 of 4 homes ${homes[1]} of 20,000`);
  t.ok(Math.abs(homes[2]! / 20_000 - 0.25) < 0.02, `weight 1 of 4 homes ${homes[2]} of 20,000`);
});

t.test('affinity: a replica that leaves moves only the conversations it was home to', async (t) => {
  const all = three();
  const without = all.slice(0, 2);
  let moved = 0;
  for (let i = 0; i < 3_000; i++) {
    const key = `org\nkey:${i}`;
    const home = rendezvousOrder(all, key)[0]!;
    if (home === 2) continue;
    if (rendezvousOrder(without, key)[0] !== home) moved += 1;
  }
  t.equal(moved, 0);
});

t.test('affinity: a conversation whose replica is down goes to its second choice (a spill)', async (t) => {
  const key = 'org\nkey:conversation-2';
  const order = rendezvousOrder(three(), key);
  const healthy = [true, true, true];
  healthy[order[0]!] = false;
  t.same(choose(three([0, 0, 0], healthy), 'affinity', key), { index: order[1], affinity: 'spilled' });
});

t.test(
  'affinity: a conversation whose replica is past its share goes to the next within its own (a spill)',
  async (t) => {
    const key = 'org\nkey:conversation-3';
    const order = rendezvousOrder(three(), key);
    const loads = [0, 0, 0];
    // 6 in flight, this one the 7th: a share is ceil(1.25 × 7 / 3) = 3, so the home with 3 already is full.
    loads[order[0]!] = 3;
    loads[order[1]!] = 2;
    loads[order[2]!] = 1;
    t.same(choose(three(loads), 'affinity', key), { index: order[1], affinity: 'spilled' });
    loads[order[1]!] = 3;
    loads[order[2]!] = 0;
    t.same(
      choose(three(loads), 'affinity', key),
      { index: order[2], affinity: 'spilled' },
      'and past that one, the third',
    );
  },
);

t.test(
  'affinity: one hot conversation cannot swamp a replica: none holds more than the bound times its share',
  async (t) => {
    const loads = pile(three(), 120, 'affinity', () => 'org\nkey:hot');
    t.ok(Math.max(...loads) <= Math.ceil((1.25 * 120) / 3), `loads ${loads}`);
    t.equal(
      loads.reduce((a, b) => a + b, 0),
      120,
    );
  },
);

t.test('affinity: a request without a conversation key goes by least outstanding', async (t) => {
  t.same(choose(three([3, 1, 2]), 'affinity', undefined), { index: 1 });
});
