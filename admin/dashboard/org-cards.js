// An organization's cards, for the operator's dashboard and the members' console: its balance, its
// lifetime spend, and its tier with the tier's limits per minute.

import { el } from './page-dom.js';
import { number } from './page-format.js';

/** The tier's limits: its field, the label and the data-testid of the value. */
const LIMITS = [
  ['requests_per_minute', 'Requests / min', 'tier-rpm'],
  ['input_tokens_per_minute', 'Input tokens / min', 'tier-itpm'],
  ['output_tokens_per_minute', 'Output tokens / min', 'tier-otpm'],
];

const card = (label, ...parts) => el('div', { class: 'card' }, el('div', { class: 'label' }, label), ...parts);
const value = (testId) => el('div', { class: 'value', 'data-testid': testId });

/** Fills `container` with the three cards; `show(org)` writes an organization's numbers in them. */
export function orgCards(container) {
  const balance = value('org-balance');
  const spent = value('org-spent');
  const tier = value('org-tier');
  const limits = new Map(LIMITS.map(([field, , testId]) => [field, el('dd', { 'data-testid': testId })]));
  container.replaceChildren(
    card('Balance', balance),
    card('Lifetime spend', spent),
    card(
      'Tier',
      tier,
      el('dl', { class: 'limits' }, ...LIMITS.flatMap(([field, label]) => [el('dt', {}, label), limits.get(field)])),
    ),
  );
  return {
    show(org) {
      balance.textContent = `${org.balance} credits`;
      spent.textContent = `${org.spent} credits`;
      tier.textContent = org.tier.name;
      for (const [field, node] of limits) node.textContent = number(org.tier[field]);
    },
  };
}
