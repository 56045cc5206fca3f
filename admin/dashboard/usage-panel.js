// The usage panel of an organization's page, for the operator's dashboard and the members' console: the
// chart (usage-chart.js) for the picked metric and range, the range's span and its totals. The range and
// metric stay as picked across organizations; a load that a newer one overtook is dropped.

import { el } from './page-dom.js';
import { number } from './page-format.js';
import { usageChart } from './usage-chart.js';

/** The metrics the chart offers, as the picker lists them. */
const METRICS = [
  ['cost', 'Cost'],
  ['input_tokens', 'Input tokens'],
  ['output_tokens', 'Output tokens'],
  ['searches', 'Searches'],
  ['requests', 'Requests'],
];
const RANGES = [7, 30, 90];
/** The totals as counts, in the order shown; the cost comes last, in credits. */
const COUNTED = [
  ['requests', 'Requests'],
  ['input_tokens', 'Input tokens'],
  ['output_tokens', 'Output tokens'],
  ['cache_read_tokens', 'Cache read'],
  ['cache_write_tokens', 'Cache write'],
  ['searches', 'Searches'],
];

const total = (field, label) => el('div', {}, el('dt', {}, label), el('dd', { 'data-testid': `usage-total-${field}` }));

/** The panel's elements inside `root`, each with its data-testid; the range `view.days` pressed. */
function render(root, view) {
  root.replaceChildren(
    el(
      'div',
      { class: 'usage-head' },
      el('h2', { id: 'usage-title' }, 'Usage'),
      el('span', { class: 'muted', 'data-testid': 'usage-span' }),
      el(
        'div',
        { class: 'controls' },
        el('label', { for: 'usage-metric', class: 'sr-only' }, 'Metric'),
        el(
          'select',
          { id: 'usage-metric', 'data-testid': 'usage-metric' },
          ...METRICS.map(([value, label]) => el('option', { value }, label)),
        ),
        el(
          'div',
          { class: 'segmented', role: 'group', 'aria-label': 'Range', 'data-testid': 'usage-range' },
          ...RANGES.map((days) =>
            el(
              'button',
              {
                type: 'button',
                'data-days': days,
                'aria-pressed': String(days === view.days),
                'data-testid': `usage-range-${days}`,
              },
              `${days} days`,
            ),
          ),
        ),
        el('a', { class: 'usage-export', download: '', hidden: true, 'data-testid': 'usage-export' }, 'Export CSV'),
      ),
    ),
    el('div', { class: 'chart', 'data-testid': 'usage-chart' }),
    el('p', { class: 'muted usage-empty', 'data-testid': 'usage-empty', hidden: true }, 'No usage in this range.'),
    el(
      'dl',
      { class: 'totals', 'data-testid': 'usage-totals' },
      ...COUNTED.map(([field, label]) => total(field, label)),
      total('cost', 'Cost'),
    ),
  );
}

/**
 * Fills `root` with the panel and wires it; `onError` gets a failed load the range buttons started.
 * `show(load, exportHref)` draws an organization's usage, `load(days)` fetching its report; `exportHref(from, to)`,
 * if given, is the URL of the range's CSV export (the *Export CSV* link).
 */
export function usagePanel(root, onError) {
  const part = (id) => root.querySelector(`[data-testid="${id}"]`);
  const view = { days: 30, metric: 'cost', report: null, ticket: 0, load: null, exportHref: null };
  render(root, view);

  function draw() {
    const { report, metric } = view;
    const chart = part('usage-chart');
    chart.replaceChildren(usageChart(report, metric));
    chart.dataset.days = String(report.days);
    chart.dataset.metric = metric;
    part('usage-metric').value = metric;
    part('usage-span').textContent = `${report.from} to ${report.to} (UTC)`;
    part('usage-empty').hidden = report.totals.requests > 0;
    for (const button of part('usage-range').querySelectorAll('button'))
      button.setAttribute('aria-pressed', String(Number(button.dataset.days) === report.days));
    for (const [field] of COUNTED) part(`usage-total-${field}`).textContent = number(report.totals[field]);
    part('usage-total-cost').textContent = `${report.totals.cost} credits`;
    const download = part('usage-export');
    download.hidden = view.exportHref === null;
    if (view.exportHref !== null) download.href = view.exportHref(report.from, report.to);
  }

  async function fetchAndDraw() {
    const ticket = ++view.ticket;
    const report = await view.load(view.days);
    if (ticket !== view.ticket) return;
    view.report = report;
    draw();
  }

  part('usage-range').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-days]');
    if (button === null || view.load === null) return;
    view.days = Number(button.dataset.days);
    fetchAndDraw().catch(onError);
  });

  part('usage-metric').addEventListener('change', (event) => {
    view.metric = event.target.value;
    if (view.report !== null) draw();
  });

  return {
    show(load, exportHref = null) {
      view.load = load;
      view.exportHref = exportHref;
      return fetchAndDraw();
    },
  };
}
