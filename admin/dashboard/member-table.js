// An organization's members as a table, for the operator's dashboard (to read) and the members' console
// (where the organization's admins also change roles and remove members): each one's e-mail, role and
// when they were added, and a last column for the console's buttons.

import { el, table } from './page-dom.js';
import { when } from './page-format.js';

/**
 * Fills `container` with the table (a last column with `actions`) and the line shown when there are no
 * members. `show(members, {role, action})` lists them: `role(member)` is the role's cell (its name unless
 * told), `action(member)` the last one's (empty unless told).
 */
export function memberTable(container, { actions = false } = {}) {
  const rows = el('tbody', { 'data-testid': 'member-rows' });
  const empty = el('p', { class: 'muted', 'data-testid': 'member-empty', hidden: true }, 'No members yet.');
  const columns = ['E-mail', 'Role', 'Added', ...(actions ? [''] : [])];
  container.replaceChildren(table({ class: 'keys members', 'data-testid': 'member-table' }, columns, rows), empty);

  const row = (member, role, action) =>
    el(
      'tr',
      { 'data-testid': 'member-row', 'data-email': member.email },
      el('td', { 'data-testid': 'member-email' }, member.email),
      el('td', { 'data-testid': 'member-role' }, role(member)),
      el('td', {}, when(member.created_at)),
      ...(actions ? [el('td', {}, action(member))] : []),
    );

  return {
    show(members, { role = (member) => member.role, action = () => '' } = {}) {
      rows.replaceChildren(...members.map((member) => row(member, role, action)));
      empty.hidden = members.length > 0;
    },
  };
}
