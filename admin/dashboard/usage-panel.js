// The usage panel of an organization's page, for the operator's dashboard and the members' console: the
// chart (usage-chart.js) for the picked metric and range, the range's span and its totals. The range and
// metric stay as picked across organizations; a load that a newer one overtook is dropped.

import { usageChart } from './usage-chart.js';

const COUNTED = ['requests', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'searches'];

const number = (value) => value.toLocaleString('en-US');

/**
 * Wires the panel under `root` (its elements by data-testid); `onError` gets a failed load the range
 * buttons started. `show(load)` draws an organization's usage, `load(days)` fetching its report.
 */
export function usagePanel(root, onError) {
  const part = (id) => root.querySelector(`[data-testid="${id}"]`);
  const view = { days: 30, metric: 'cost', report: null, ticket: 0, load: null };

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
    for (const field of COUNTED) part(`usage-total-${field}`).textContent = number(report.totals[field]);
    part('usage-total-cost').textContent = `${report.totals.cost} credits`;
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
    show(load) {
      view.load = load;
      return fetchAndDraw();
    },
  };
}
