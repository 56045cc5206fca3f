// The chart image: grouped bars of CPU per request (per scenario) and of the time to first byte (per concurrency).
import { ADDED_TTFB_LIMITS_MS, FULL_CHAIN_CPU_LIMITS, rowFor, type SummaryRow } from './summary.js';
import type { TtfbResult } from './ttfb.js';

interface Group {
  label: string;
  values: Array<number | undefined>;
  /** Drawn on top of the value's bar, in STACK_COLOR: another process's share of the same requests (its redis-server and PostgreSQL). */
  stacked?: Array<number | undefined>;
  /** Targets for the gateway's bars, each drawn as a line across the group (dash pattern as in SVG's stroke-dasharray). */
  limits: Array<{ value: number; dash: string }>;
}

interface Panel {
  title: string;
  groups: Group[];
  format: (value: number) => string;
}

const COLORS = [
  '#8c8c8c',
  '#bab0ac',
  '#4e79a7',
  '#59a14f',
  '#e15759',
  '#f28e2b',
  '#b07aa1',
  '#76b7b2',
  '#9c755f',
  '#ff9da7',
];
const STACK_COLOR = '#edc948';
const WIDTH = 960;
const LEGEND_ITEM_WIDTH = 150;
const LEGEND_ROW_HEIGHT = 20;
const PANEL_HEIGHT = 300;
const MARGIN = { left: 60, right: 20, top: 40, bottom: 40 };

export function chartSvg(
  rows: readonly SummaryRow[],
  ttfb: readonly TtfbResult[],
  scenarios: readonly string[],
  targets: readonly string[],
  caption: string,
): string {
  const cpu: Panel = {
    title: `CPU per request of the process under test, µs (direct = the sim; dashed: the full chain's limit, ${Object.values(FULL_CHAIN_CPU_LIMITS).join('/')}x http-proxy-3)`,
    groups: scenarios.map((scenario) => {
      const bare = rowFor(rows, 'http-proxy-3', scenario);
      const limit = FULL_CHAIN_CPU_LIMITS[scenario];
      const limits =
        bare === undefined || limit === undefined ? [] : [{ value: bare.cpuUsPerRequest * limit, dash: '5,4' }];
      const stacked = targets.map((target) => rowFor(rows, target, scenario)?.servicesCpuUsPerRequest ?? undefined);
      return {
        label: scenario,
        values: targets.map((target) => rowFor(rows, target, scenario)?.cpuUsPerRequest),
        stacked,
        limits,
      };
    }),
    format: (value) => value.toFixed(0),
  };
  const concurrencies = [...new Set(ttfb.map((result) => result.concurrency))];
  const firstByte: Panel = {
    title: `Time to first body byte, p50, ms (chat path, stream, ttft 0; dashed: direct + the full chain's limit)`,
    groups: concurrencies.map((concurrency) => {
      const at = (target: string): number | undefined =>
        ttfb.find((result) => result.concurrency === concurrency && result.target === target)?.p50Ms;
      const direct = at('direct');
      const limit = ADDED_TTFB_LIMITS_MS[concurrency];
      return {
        label: `concurrency ${concurrency}`,
        values: targets.map(at),
        limits: direct === undefined || limit === undefined ? [] : [{ value: direct + limit, dash: '5,4' }],
      };
    }),
    format: (value) => value.toFixed(2),
  };
  const legendY = 2 * PANEL_HEIGHT + 20;
  const hasStack = cpu.groups.some((group) =>
    group.stacked?.some((value) => value !== undefined && Number.isFinite(value)),
  );
  const entries = [
    ...targets.map((target, index) => ({ label: target, color: COLORS[index % COLORS.length]! })),
    ...(hasStack ? [{ label: 'its redis-server / PostgreSQL (stacked)', color: STACK_COLOR }] : []),
  ];
  const perRow = Math.max(1, Math.floor((WIDTH - MARGIN.left - MARGIN.right) / LEGEND_ITEM_WIDTH));
  const legend = entries
    .map((entry, index) => {
      const x = MARGIN.left + (index % perRow) * LEGEND_ITEM_WIDTH;
      const y = legendY + Math.floor(index / perRow) * LEGEND_ROW_HEIGHT;
      return `<rect x="${x}" y="${y}" width="14" height="14" fill="${entry.color}"/><text x="${x + 20}" y="${y + 12}">${escape(entry.label)}</text>`;
    })
    .join('');
  const height = legendY + Math.ceil(entries.length / perRow) * LEGEND_ROW_HEIGHT + 30;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    panelSvg(cpu, 0),
    panelSvg(firstByte, PANEL_HEIGHT),
    legend,
    `<text x="${MARGIN.left}" y="${height - 10}" fill="#555">${escape(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

function panelSvg(panel: Panel, top: number): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const baseY = top + MARGIN.top + plotHeight;
  const tops = (group: Group): Array<number | undefined> =>
    group.values.map((value, index) =>
      value === undefined ? undefined : value + finiteOrZero(group.stacked?.[index]),
    );
  const max = Math.max(
    1e-9,
    ...panel.groups.flatMap((group) =>
      [...tops(group), ...group.limits.map((limit) => limit.value)].filter(
        (value): value is number => value !== undefined && Number.isFinite(value),
      ),
    ),
  );
  const groupWidth = plotWidth / Math.max(1, panel.groups.length);
  const parts = [
    `<text x="${MARGIN.left}" y="${top + 24}" font-size="14" font-weight="bold">${escape(panel.title)}</text>`,
    `<line x1="${MARGIN.left}" y1="${baseY}" x2="${WIDTH - MARGIN.right}" y2="${baseY}" stroke="#333"/>`,
  ];
  panel.groups.forEach((group, groupIndex) => {
    const barWidth = (groupWidth * 0.8) / Math.max(1, group.values.length);
    const groupX = MARGIN.left + groupIndex * groupWidth + groupWidth * 0.1;
    group.values.forEach((value, index) => {
      if (value === undefined || !Number.isFinite(value)) return;
      const barHeight = (value / max) * plotHeight;
      const stackHeight = (finiteOrZero(group.stacked?.[index]) / max) * plotHeight;
      const x = groupX + index * barWidth;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${(baseY - barHeight).toFixed(1)}" width="${(barWidth * 0.9).toFixed(1)}" height="${barHeight.toFixed(1)}" fill="${COLORS[index % COLORS.length]}"/>`,
      );
      if (stackHeight > 0)
        parts.push(
          `<rect x="${x.toFixed(1)}" y="${(baseY - barHeight - stackHeight).toFixed(1)}" width="${(barWidth * 0.9).toFixed(1)}" height="${stackHeight.toFixed(1)}" fill="${STACK_COLOR}"/>`,
        );
      parts.push(
        `<text x="${(x + barWidth * 0.45).toFixed(1)}" y="${(baseY - barHeight - stackHeight - 4).toFixed(1)}" text-anchor="middle"${barWidth < 36 ? ' font-size="9"' : ''}>${escape(panel.format(value))}</text>`,
      );
    });
    for (const limit of group.limits) {
      if (!Number.isFinite(limit.value)) continue;
      const y = (baseY - (limit.value / max) * plotHeight).toFixed(1);
      parts.push(
        `<line x1="${groupX.toFixed(1)}" y1="${y}" x2="${(groupX + groupWidth * 0.8).toFixed(1)}" y2="${y}" stroke="#333" stroke-dasharray="${limit.dash}"/>`,
      );
    }
    parts.push(
      `<text x="${(groupX + groupWidth * 0.4).toFixed(1)}" y="${baseY + 18}" text-anchor="middle" font-weight="bold">${escape(group.label)}</text>`,
    );
  });
  return parts.join('\n');
}

function finiteOrZero(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) ? value : 0;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
