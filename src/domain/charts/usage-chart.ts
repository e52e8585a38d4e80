// An account's requests per UTC day as a bar chart (the account pages' Overview):
// server-rendered SVG, no script, colours from the page's stylesheet (classes), so
// the page's Content-Security-Policy needs no inline style. The chart names itself
// (title, desc) and a table beside it carries the same figures for screen readers. Built with the `html`
// tag (domain/html.ts): the page takes it as markup it made, never through unsafeRawHtml.
import { html, joinHtml, type Html } from '../html.js';

export interface UsageDay {
  day: string;
  requests: number;
}

const WIDTH = 640;
const HEIGHT = 200;
const LEFT = 48;
const BOTTOM = 24;
const TOP = 12;

/** `days` oldest first, one per day (zeros included); `limit` draws the plan's daily quota when it fits the scale. */
export function renderUsageChart(days: readonly UsageDay[], limit: number | null): Html {
  const peak = Math.max(1, ...days.map((d) => d.requests));
  const scaleTop = limit !== null && limit <= peak * 2 ? Math.max(peak, limit) : peak;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / Math.max(1, days.length);
  const y = (value: number) => TOP + plotHeight - (value / scaleTop) * plotHeight;
  const total = days.reduce((sum, d) => sum + d.requests, 0);
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  const bars = days.map((d, i) => {
    const top = y(d.requests);
    const x = (LEFT + i * slot + slot * 0.15).toFixed(1);
    return html`<rect class="bar" x="${x}" y="${top.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${(TOP + plotHeight - top).toFixed(1)}"><title>${d.day}: ${d.requests} requests</title></rect>`;
  });
  const quota =
    limit !== null && limit <= scaleTop
      ? html`<line class="quota" x1="${LEFT}" x2="${WIDTH}" y1="${y(limit).toFixed(1)}" y2="${y(limit).toFixed(1)}"/><text class="label" x="${WIDTH - 4}" y="${(y(limit) - 4).toFixed(1)}" text-anchor="end">daily quota ${limit}</text>`
      : '';
  return joinHtml([
    html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="usage-title usage-desc" class="usage-chart">`,
    html`<title id="usage-title">Requests per UTC day, ${first} to ${last}</title>`,
    html`<desc id="usage-desc">${total} requests over ${days.length} days; the busiest day had ${Math.max(0, ...days.map((d) => d.requests))}.</desc>`,
    html`<line class="axis" x1="${LEFT}" x2="${WIDTH}" y1="${TOP + plotHeight}" y2="${TOP + plotHeight}"/>`,
    html`<text class="label" x="${LEFT - 6}" y="${TOP + 4}" text-anchor="end">${scaleTop}</text>`,
    html`<text class="label" x="${LEFT - 6}" y="${TOP + plotHeight}" text-anchor="end">0</text>`,
    html`<text class="label" x="${LEFT}" y="${HEIGHT - 6}">${first}</text>`,
    html`<text class="label" x="${WIDTH}" y="${HEIGHT - 6}" text-anchor="end">${last}</text>`,
    bars,
    quota,
    html`</svg>`,
  ]);
}

/** The last `count` UTC days ending with `today`, oldest first, with the requests `known` has for each (0 otherwise). */
export function fillDays(known: ReadonlyArray<UsageDay>, today: string, count: number): UsageDay[] {
  const byDay = new Map(known.map((d) => [d.day, d.requests]));
  const end = Date.parse(`${today}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => {
    const day = new Date(end - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    return { day, requests: byDay.get(day) ?? 0 };
  });
}
