// The pages' elements: found by data-testid, made from a tag, attributes and children (text always goes
// in as text, never as HTML: the pages' CSP allows no inline code, and the data holds what people
// typed), tables with their header row, and an error's message shown in its element.

/** The element with this data-testid, in `root` (the whole page unless told). */
export const byTestId = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);

/** Creates an element; an attribute `true` is present and empty (`hidden`), `false` or undefined absent. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === undefined) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) node.append(child);
  return node;
}

/** A <table> with a header row naming `columns`, then `body` (its <tbody>). */
export const table = (attributes, columns, body) =>
  el('table', attributes, el('thead', {}, el('tr', {}, ...columns.map((column) => el('th', {}, column)))), body);

/** Shows the error's message (or a string) in `target`, an element or its data-testid, and unhides it. */
export function showError(target, error) {
  const node = typeof target === 'string' ? byTestId(target) : target;
  node.textContent = error instanceof Error ? error.message : String(error);
  node.hidden = false;
}
