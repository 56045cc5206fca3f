// The list of organizations, for the operator's dashboard (all of them) and the members' console (the
// member's own): a link to each one's page (#/orgs/ID) with its name and a word about it, or a line
// saying there are none.

import { byTestId, el } from './page-dom.js';

/** Lists `orgs` in the org-list element, `detail(org)` beside each name; org-empty shows when there are none. */
export function showOrgList(orgs, detail) {
  byTestId('org-list').replaceChildren(
    ...orgs.map((org) =>
      el(
        'li',
        {},
        el(
          'a',
          { href: `#/orgs/${encodeURIComponent(org.id)}`, 'data-testid': 'org-link', 'data-org': org.name },
          el('strong', {}, org.name),
          el('span', { class: 'muted' }, detail(org)),
        ),
      ),
    ),
  );
  byTestId('org-empty').hidden = orgs.length > 0;
}
