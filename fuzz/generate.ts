// Builds case number `index` of a run from the run's seed alone (its own random sequence), so any case can
// be built again, byte for byte, without the cases before it.
import { CORPUS } from './corpus.js';
import { STAGES, type Draft, type FuzzCase, type Mutation, type MutationContext } from './fuzz-case.js';
import { fromValue, toText } from './json-tree.js';
import { chooseKey } from './keys.js';
import { MUTATIONS } from './mutations/index.js';
import { Prng } from './prng.js';
import { ROUTE_NAMES } from './routes.js';

/** How many mutations a case gets: some none (the valid requests that move money), most one or two. */
const MUTATION_COUNTS = [
  { weight: 12, value: 0 },
  { weight: 50, value: 1 },
  { weight: 25, value: 2 },
  { weight: 13, value: 3 },
];

const WEIGHTED_MUTATIONS = MUTATIONS.map((mutation) => ({ weight: mutation.weight, value: mutation }));

export function generateCase(seed: number, index: number, context: MutationContext): FuzzCase {
  const rng = new Prng(seed, index);
  const route = rng.pick(ROUTE_NAMES);
  const start = rng.pick(CORPUS.filter((candidate) => candidate.route === route));
  const key = chooseKey(rng, context.credentials);
  const draft: Draft = {
    route,
    tree: fromValue(start.body),
    bytes: undefined,
    headers: { 'content-type': 'application/json', ...key.headers },
    chunked: false,
  };
  const drawn: Mutation[] = [];
  for (let count = rng.weighted(MUTATION_COUNTS); count > 0; count--) drawn.push(rng.weighted(WEIGHTED_MUTATIONS));
  drawn.sort((a, b) => STAGES.indexOf(a.stage) - STAGES.indexOf(b.stage));
  const notes = [key.name];
  for (const mutation of drawn) {
    const note = mutation.apply(draft, rng, context);
    if (note !== undefined) notes.push(`${mutation.name}: ${note}`);
  }
  const body = draft.bytes ?? Buffer.from(toText(draft.tree), 'utf8');
  return {
    index,
    route,
    seed: start.name,
    mutations: notes,
    mutated: key.mutated || notes.length > 1,
    headers: draft.headers,
    body,
    chunked: draft.chunked,
  };
}
