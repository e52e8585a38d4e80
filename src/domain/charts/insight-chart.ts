// An insight's picture: the 30-day series and the 7-day forecast with its 80 %
// and 95 % bands, dated axes, a title and a legend. Pure: data in, SVG out, built with the `html` tag
// (domain/html.ts), so a title, caption or label from outside is text in it whatever it holds.
import { html, type Html } from '../html.js';

export interface ChartPoint {
  date: string;
  value: number;
}
export interface ChartForecastPoint extends ChartPoint {
  lower_80: number;
  upper_80: number;
  lower_95: number;
  upper_95: number;
}

/** Common days a rescale needs; fewer and the forecast is not drawn on another series' scale. */
export const MIN_OVERLAP_DAYS = 7;
/** Scales within this of each other are one scale (Google's integer rounding). */
const SAME_SCALE = 0.02;

export interface ForecastOnSeries {
  /** The forecast on the drawn series' scale; null when it cannot be put there (not drawn). */
  forecast: ChartForecastPoint[] | null;
  /** The drawn series' scale over the fitted series' (1: the same scale); null when not drawn. */
  factor: number | null;
  /** Days the two series share, over which the factor was measured. */
  overlap: number;
  /** What the chart says of it; null when the forecast continues the very series it was fitted on. */
  note: string | null;
  /** Values (forecasts and interval bounds) beyond 0–100 that were clipped to the scale's bounds. */
  clipped: number;
}

/** The bounds of Google's scale: its highest point is 100 and nothing is below 0. */
export const SCALE = { min: 0, max: 100 } as const;

/**
 * The forecast within the scale's bounds, and how many of its values were beyond them. An interval
 * (or a forecast rescaled ×3.45) past 100 says more than the scale can (founder review, issue 47:
 * "0–215.7" on a 0–100 scale): it is clipped at 100, and what shows it says so.
 */
export function clipToScale(points: readonly ChartForecastPoint[]): { points: ChartForecastPoint[]; clipped: number } {
  let clipped = 0;
  const clip = (v: number) => {
    if (v > SCALE.max || v < SCALE.min) clipped += 1;
    return Math.min(SCALE.max, Math.max(SCALE.min, v));
  };
  const out = points.map((p) => ({
    date: p.date,
    value: clip(p.value),
    lower_80: clip(p.lower_80),
    upper_80: clip(p.upper_80),
    lower_95: clip(p.lower_95),
    upper_95: clip(p.upper_95),
  }));
  return { points: out, clipped };
}

/** What a note says of clipped values, or ''. */
export const clippedNote = (clipped: number) =>
  clipped > 0 ? `; ${clipped} value${clipped === 1 ? '' : 's'} clipped to the scale's 0–100` : '';

/**
 * The forecast as it may be joined to `series`. Google scales every request to
 * its own peak, so a forecast fitted on the 90 days is on the 90 days' scale,
 * not the 30 days' (a demo chart joined a 30-day line ending at 59 to a
 * forecast starting at 13.5: a cliff the data does not have). Over the days the
 * two series share, the ratio of their sums is the one factor between the two
 * scales; the forecast is redrawn by it and the chart says so. Without the
 * fitted series, or with too few common days, the forecast is not drawn.
 */
export function forecastOnSeries(
  series: readonly ChartPoint[],
  forecast: readonly ChartForecastPoint[] | null,
  fittedOn: readonly ChartPoint[] | undefined,
  fittedLabel = 'the 90-day series',
): ForecastOnSeries {
  if (!forecast || forecast.length === 0) return { forecast: null, factor: null, overlap: 0, note: null, clipped: 0 };
  if (!fittedOn)
    return {
      forecast: null,
      factor: null,
      overlap: 0,
      note: '7-day forecast not drawn: the series it was fitted on is not stored, so its scale is unknown',
      clipped: 0,
    };
  const fitted = new Map(fittedOn.map((p) => [p.date, p.value]));
  const common = series.filter((p) => fitted.has(p.date));
  const shown = common.reduce((a, p) => a + p.value, 0);
  const base = common.reduce((a, p) => a + fitted.get(p.date)!, 0);
  if (common.length < MIN_OVERLAP_DAYS || !(shown > 0) || !(base > 0))
    return {
      forecast: null,
      factor: null,
      overlap: common.length,
      note: `7-day forecast not drawn: it is on the scale of ${fittedLabel}, which shares too few days with this one (${common.length}) to rescale it`,
      clipped: 0,
    };
  const factor = shown / base;
  if (Math.abs(factor - 1) <= SAME_SCALE) {
    const same = clipToScale(forecast);
    const note = same.clipped > 0 ? `7-day forecast on this series' scale${clippedNote(same.clipped)}` : null;
    return { forecast: same.points, factor: 1, overlap: common.length, note, clipped: same.clipped };
  }
  const r1 = (v: number) => Math.round(v * factor * 10) / 10;
  const rescaled = clipToScale(
    forecast.map((p) => ({
      date: p.date,
      value: r1(p.value),
      lower_80: r1(p.lower_80),
      upper_80: r1(p.upper_80),
      lower_95: r1(p.lower_95),
      upper_95: r1(p.upper_95),
    })),
  );
  return {
    forecast: rescaled.points,
    factor: Math.round(factor * 1000) / 1000,
    overlap: common.length,
    note: `7-day forecast from ${fittedLabel}, rescaled to this one through their ${common.length} common days (×${factor.toFixed(2)})${clippedNote(rescaled.clipped)}`,
    clipped: rescaled.clipped,
  };
}

const W = 860;
const H = 420;
const M = { top: 56, right: 24, bottom: 64, left: 48 };

const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;
const label = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function renderInsightChart(input: {
  title: string;
  series: ChartPoint[];
  forecast: ChartForecastPoint[] | null;
  note?: string;
  /** What the line is, for the legend ("90-day interest", "5-year interest, weekly"); the 30 days by default. */
  seriesLabel?: string;
  /** What the values are and whose, under the title ("Simulated interest, 2026-10-30 to 2026-11-28"): a simulation never reads as Google's. */
  caption?: string;
  /** The series the forecast was fitted on (its scale), and what it is; see forecastOnSeries. */
  forecastFittedOn?: ChartPoint[];
  forecastFittedLabel?: string;
}): Html {
  const onScale = forecastOnSeries(input.series, input.forecast, input.forecastFittedOn, input.forecastFittedLabel);
  const forecast = onScale.forecast;
  const all = [...input.series.map((p) => p.date), ...(forecast ?? []).map((p) => p.date)];
  const first = all.length ? Math.min(...all.map(dayOf)) : 0;
  const last = all.length ? Math.max(...all.map(dayOf)) : 1;
  const span = Math.max(1, last - first);
  const x = (date: string) => M.left + ((dayOf(date) - first) / span) * (W - M.left - M.right);
  const y = (v: number) => M.top + (1 - Math.min(100, Math.max(0, v)) / 100) * (H - M.top - M.bottom);
  const line = (pts: ChartPoint[]) => pts.map((p, i) => `${i ? 'L' : 'M'}${x(p.date).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const band = (pts: ChartForecastPoint[], lo: 'lower_80' | 'lower_95', hi: 'upper_80' | 'upper_95') =>
    `${pts.map((p, i) => `${i ? 'L' : 'M'}${x(p.date).toFixed(1)},${y(p[hi]).toFixed(1)}`).join(' ')} ${[...pts]
      .reverse()
      .map((p) => `L${x(p.date).toFixed(1)},${y(p[lo]).toFixed(1)}`)
      .join(' ')} Z`;

  const parts: Html[] = [];
  parts.push(html`<rect x="0" y="0" width="${W}" height="${H}" fill="#ffffff"/>`);
  parts.push(html`<text x="${M.left}" y="28" font-size="18" font-weight="600" fill="#1f2937">${input.title.slice(0, 90)}</text>`);
  if (input.caption) parts.push(html`<text x="${M.left}" y="46" font-size="12" fill="#4b5563">${input.caption.slice(0, 120)}</text>`);
  // Axes and gridlines: 0–100 in steps of 25; a date label about every 5 days.
  for (const v of [0, 25, 50, 75, 100]) {
    parts.push(html`<line x1="${M.left}" x2="${W - M.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/>`);
    parts.push(html`<text x="${M.left - 8}" y="${y(v) + 4}" font-size="11" text-anchor="end" fill="#6b7280">${v}</text>`);
  }
  const step = Math.max(1, Math.round(all.length / 7));
  let lastLabelX = -Infinity;
  [...new Set(all)].sort().forEach((d, i, arr) => {
    if (i % step !== 0 && i !== arr.length - 1) return;
    if (x(d) - lastLabelX < 40) return; // labels must not overlap
    lastLabelX = x(d);
    parts.push(html`<line x1="${x(d)}" x2="${x(d)}" y1="${H - M.bottom}" y2="${H - M.bottom + 5}" stroke="#9ca3af"/>`);
    parts.push(html`<text x="${x(d)}" y="${H - M.bottom + 18}" font-size="11" text-anchor="middle" fill="#6b7280">${label(d)}</text>`);
  });
  parts.push(html`<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#9ca3af"/>`);
  parts.push(
    html`<text x="14" y="${M.top + (H - M.top - M.bottom) / 2}" font-size="11" fill="#6b7280" transform="rotate(-90 14 ${M.top + (H - M.top - M.bottom) / 2})" text-anchor="middle">${input.caption?.startsWith('Simulated') ? 'Simulated interest' : 'Search interest'} (0–100)</text>`,
  );

  const fc = forecast && forecast.length > 0 ? forecast : null;
  if (fc) {
    parts.push(html`<path d="${band(fc, 'lower_95', 'upper_95')}" fill="#93c5fd" fill-opacity="0.35"/>`);
    parts.push(html`<path d="${band(fc, 'lower_80', 'upper_80')}" fill="#3b82f6" fill-opacity="0.35"/>`);
    const joined = input.series.length ? [input.series.at(-1)!, ...fc] : fc;
    parts.push(html`<path d="${line(joined)}" fill="none" stroke="#1d4ed8" stroke-width="2" stroke-dasharray="6 4"/>`);
  }
  if (input.series.length) parts.push(html`<path d="${line(input.series)}" fill="none" stroke="#111827" stroke-width="2.5"/>`);

  // Legend.
  // The legend, then under it on a line of its own the note on the forecast's scale (founder review,
  // issue 47: the note, right-aligned on the legend's line, ran into the legend's marks).
  const ly = H - 30;
  const legend: Array<[Html, string]> = [
    [html`<line x1="0" x2="22" y1="0" y2="0" stroke="#111827" stroke-width="2.5"/>`, input.seriesLabel ?? '30-day interest'],
  ];
  // The forecast's marks only when it is drawn (it is left out when its scale is unknown).
  if (fc)
    legend.push(
      [html`<line x1="0" x2="22" y1="0" y2="0" stroke="#1d4ed8" stroke-width="2" stroke-dasharray="6 4"/>`, '7-day forecast'],
      [html`<rect x="0" y="-6" width="22" height="12" fill="#3b82f6" fill-opacity="0.35"/>`, '80% interval'],
      [html`<rect x="0" y="-6" width="22" height="12" fill="#93c5fd" fill-opacity="0.35"/>`, '95% interval'],
    );
  legend.forEach(([mark, text], i) => {
    parts.push(
      html`<g transform="translate(${M.left + i * 170},${ly})">${mark}<text x="28" y="4" font-size="12" fill="#374151">${text}</text></g>`,
    );
  });
  if (input.note) parts.push(html`<text x="${W - M.right}" y="28" font-size="11" text-anchor="end" fill="#b45309">${input.note}</text>`);
  // Under the legend, left-aligned (the caption holds the line under the title): how the forecast was put on
  // this series' scale, or why it was not drawn.
  if (onScale.note) parts.push(html`<text x="${M.left}" y="${H - 6}" font-size="11" fill="#b45309">${onScale.note}</text>`);
  return html`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" role="img" aria-label="${input.title}"><title>${input.title}</title>${parts}</svg>`;
}

const BLOCKS = '▁▂▃▄▅▆▇█';
/** A sparkline of 0–100 values in Unicode blocks, for a terminal and Markdown (the pages draw theirs in SVG: http/pages/sparkline.ts). */
export function textSparkline(values: readonly number[]): string {
  return values.map((v) => BLOCKS[Math.min(7, Math.max(0, Math.round((v / 100) * 7)))]).join('');
}
