// The usage chart: one bar per UTC day of a usage report (days without usage drawn as zero), for one
// metric, as an SVG built with DOM calls (the page's CSP allows no inline code or styles). Each day is
// a <g data-testid="usage-bar"> with data-date, data-value and a <title> as its tooltip.

import { number } from './page-format.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const DAY_MS = 86_400_000;
const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 14, right: 22, bottom: 26, left: 50 };

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });

const counted = (field, one, many) => ({
  field,
  value: (day) => String(day[field]),
  text: (day) => `${number(day[field])} ${day[field] === 1 ? one : many}`,
  axis: (value) => compact.format(value),
});

/** What the chart can show: the field it scales by, the value as data-value, the tooltip's words, an axis label. */
export const METRICS = {
  cost: {
    field: 'cost_micros',
    value: (day) => day.cost,
    text: (day) => `${day.cost} credits`,
    axis: (micros) => compact.format(micros / 1e6),
  },
  input_tokens: counted('input_tokens', 'input token', 'input tokens'),
  output_tokens: counted('output_tokens', 'output token', 'output tokens'),
  searches: counted('searches', 'search', 'searches'),
  requests: counted('requests', 'request', 'requests'),
};

const ZERO = {
  requests: 0,
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  searches: 0,
  cost: '0',
  cost_micros: 0,
};

/** Every day from `from` to `to`, oldest first, the report's day where it has one and zeros elsewhere. */
export function everyDay(report) {
  const known = new Map(report.daily.map((day) => [day.date, day]));
  const days = [];
  for (let ms = Date.parse(`${report.from}T00:00:00Z`); ms <= Date.parse(`${report.to}T00:00:00Z`); ms += DAY_MS) {
    const date = new Date(ms).toISOString().slice(0, 10);
    days.push(known.get(date) ?? { date, ...ZERO });
  }
  return days;
}

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

const shortDate = (date) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function usageChart(report, metricName) {
  const metric = METRICS[metricName];
  const days = everyDay(report);
  const max = Math.max(0, ...days.map((day) => day[metric.field]));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const baseline = PAD.top + plotHeight;
  const slot = plotWidth / days.length;
  const barWidth = Math.min(48, Math.max(1, slot * 0.7));
  // Date labels on about seven days, counted back from the last so today always has one.
  const every = Math.ceil(days.length / 7);

  const chart = svg(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: 'img',
      'aria-label': `${metricName.replace('_', ' ')} per day, ${report.from} to ${report.to}`,
    },
    svg('line', { class: 'grid', x1: PAD.left, x2: WIDTH - PAD.right, y1: PAD.top, y2: PAD.top }),
    svg('line', { class: 'axis', x1: PAD.left, x2: WIDTH - PAD.right, y1: baseline, y2: baseline }),
    svg('text', { class: 'y-label', x: PAD.left - 8, y: PAD.top, 'data-testid': 'usage-max' }, metric.axis(max)),
    svg('text', { class: 'y-label', x: PAD.left - 8, y: baseline }, '0'),
  );

  days.forEach((day, index) => {
    const x = PAD.left + index * slot;
    const value = day[metric.field];
    // A day with any usage stays visible however small it is next to the largest.
    const height = max === 0 ? 0 : Math.max(value > 0 ? 1.5 : 0, (value / max) * plotHeight);
    chart.append(
      svg(
        'g',
        { class: 'day', 'data-testid': 'usage-bar', 'data-date': day.date, 'data-value': metric.value(day) },
        svg('title', {}, `${shortDate(day.date)}, ${day.date.slice(0, 4)}: ${metric.text(day)}`),
        svg('rect', { class: 'hit', x, y: PAD.top, width: slot, height: plotHeight }),
        svg('rect', {
          class: 'bar',
          x: x + (slot - barWidth) / 2,
          y: baseline - height,
          width: barWidth,
          height,
          rx: Math.min(3, barWidth / 3),
        }),
      ),
    );
    if ((days.length - 1 - index) % every === 0) {
      chart.append(svg('text', { class: 'x-label', x: x + slot / 2, y: HEIGHT - 6 }, shortDate(day.date)));
    }
  });
  return chart;
}
