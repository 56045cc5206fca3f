// Which replica takes a request (docs/upstreams.md, "Routing"). Three ways, `upstream.routing`:
// - least_outstanding: the healthy replica with the fewest requests in flight per unit of its weight (its
//   configured capacity); ties rotate.
// - affinity (the default): a request of a conversation (it has a key, affinity-key.ts) goes to the replica
//   weighted rendezvous hashing gives its key, so its next turn finds its prefix in that server's cache, unless
//   that replica is unhealthy or holds more than its share: `bound` × its weight's share of the requests in flight
//   (this one included), rounded up (consistent hashing with bounded loads, Mirrokni et al. 2018). Then the next
//   replica in the key's order that is within its share takes it (a spill), so one hot conversation cannot swamp a
//   replica. A request without a key goes by least outstanding.
// - round_robin: the healthy replicas in turn, weights ignored (the baseline the bench compares against).
// Rendezvous hashing needs no ring and no shared state: every node of a fleet, given the same URLs, ranks the
// replicas of a key the same way.

export type Routing = 'affinity' | 'least_outstanding' | 'round_robin';

/** What the choice needs to know of a replica. */
export interface Candidate {
  /** Stable across nodes and restarts (its URL): the name a key's ranking hashes. */
  readonly label: string;
  readonly inFlight: number;
  /** Its capacity relative to the others' (a positive integer). */
  readonly weight: number;
  readonly healthy: boolean;
}

/** A keyed request went to its key's first replica, or past it to a later one that was within its share. */
export type AffinityOutcome = 'hit' | 'spilled';

export interface Choice {
  /** The replica's index; -1 when no replica is healthy. */
  readonly index: number;
  /** Only for a keyed request under affinity routing. */
  readonly affinity?: AffinityOutcome;
}

export interface ChoiceRequest {
  readonly routing: Routing;
  /** The conversation's key; undefined: the request has none. */
  readonly key: string | undefined;
  /** The load bound of affinity, at least 1. */
  readonly bound: number;
  /** A counter the caller advances per request: where ties and round robin start. */
  readonly turn: number;
}

const NONE: Choice = { index: -1 };

export function chooseReplica(candidates: readonly Candidate[], request: ChoiceRequest): Choice {
  switch (request.routing) {
    case 'round_robin':
      return { index: nextHealthy(candidates, request.turn) };
    case 'least_outstanding':
      return { index: leastLoaded(candidates, request.turn) };
    case 'affinity':
      return request.key === undefined
        ? { index: leastLoaded(candidates, request.turn) }
        : withinShare(candidates, request.key, request.bound);
  }
}

/** The first healthy replica from `turn` on, in turn. */
function nextHealthy(candidates: readonly Candidate[], turn: number): number {
  const count = candidates.length;
  for (let i = 0; i < count; i++) {
    const index = (turn + i) % count;
    if (candidates[index]!.healthy) return index;
  }
  return -1;
}

/** The healthy replica with the least (in flight + 1) / weight; ties go to the first from `turn` on. */
function leastLoaded(candidates: readonly Candidate[], turn: number): number {
  const count = candidates.length;
  let best = -1;
  for (let i = 0; i < count; i++) {
    const index = (turn + i) % count;
    const candidate = candidates[index]!;
    if (!candidate.healthy) continue;
    // a/w < b/v as a·v < b·w: whole numbers, no division.
    if (
      best === -1 ||
      (candidate.inFlight + 1) * candidates[best]!.weight < (candidates[best]!.inFlight + 1) * candidate.weight
    )
      best = index;
  }
  return best;
}

/** The key's replicas in its rendezvous order; the first healthy one within its share takes the request. */
function withinShare(candidates: readonly Candidate[], key: string, bound: number): Choice {
  let inFlight = 0;
  let weights = 0;
  for (const candidate of candidates) {
    if (!candidate.healthy) continue;
    inFlight += candidate.inFlight;
    weights += candidate.weight;
  }
  if (weights === 0) return NONE;
  const order = rendezvousOrder(candidates, key);
  for (const index of order) {
    const candidate = candidates[index]!;
    if (!candidate.healthy) continue;
    const share = Math.ceil((bound * (inFlight + 1) * candidate.weight) / weights);
    if (candidate.inFlight + 1 <= share) return { index, affinity: index === order[0] ? 'hit' : 'spilled' };
  }
  // Unreachable: the shares add up to at least the requests in flight plus this one, so one has room.
  return { index: leastLoaded(candidates, 0), affinity: 'spilled' };
}

/**
 * The replicas ranked for a key, best first: weighted rendezvous hashing, each replica's score −weight / ln(h)
 * for h uniform in (0, 1) from the key and its label, so a replica wins a share of keys in proportion to its
 * weight, and a replica that leaves or comes back moves only the keys it wins.
 */
export function rendezvousOrder(candidates: readonly Candidate[], key: string): number[] {
  const keyHash = fnv1a(key);
  const scores = candidates.map((candidate) => -candidate.weight / Math.log(unitInterval(keyHash, candidate.label)));
  return candidates.map((_, index) => index).sort((a, b) => scores[b]! - scores[a]! || a - b);
}

/** FNV-1a, 32 bits, of a string's UTF-16 code units. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** MurmurHash3's finalizer: every input bit moves every output bit. */
function mix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A number strictly inside (0, 1) from a key's hash and a replica's label: 52 bits, from two mixes. */
function unitInterval(keyHash: number, label: string): number {
  const labelHash = fnv1a(label);
  const high = mix(keyHash ^ labelHash) >>> 6; // 26 bits
  const low = mix(keyHash ^ Math.imul(labelHash, 0x9e3779b1) ^ 0x5bd1e995) >>> 6; // 26 bits
  return (high * 2 ** 26 + low + 0.5) / 2 ** 52;
}
