// Small inline SVG lines for the account pages: no script, no style attribute (the pages' policy allows only the
// one stylesheet, which colours them by class), each with a <title> a screen reader reads.
import { html, type Html } from '../../domain/html.js';

export interface SparkPoint {
  date: string;
  value: number;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** The points as an SVG polyline's coordinates on a width × height box, 0–100 from the bottom up. */
function polyline(points: readonly SparkPoint[], width: number, height: number, pad: number): string {
  const step = points.length > 1 ? (width - 2 * pad) / (points.length - 1) : 0;
  return points
    .map((p, i) => `${round(pad + i * step)},${round(height - pad - (Math.max(0, Math.min(100, p.value)) / 100) * (height - 2 * pad))}`)
    .join(' ');
}

/** One series as a line 120 × 28 px on the 0–100 scale; '—' without points. */
export function sparkline(points: readonly SparkPoint[], what: string): Html {
  if (points.length === 0) return html`<span class="muted">no series</span>`;
  const first = points[0]!;
  const last = points.at(-1)!;
  const title = `${what}: interest ${Math.round(first.value)} on ${first.date}, ${Math.round(last.value)} on ${last.date} (${points.length} days, 0–100)`;
  return html`<svg class="spark" role="img" viewBox="0 0 120 28" width="120" height="28"><title>${title}</title><polyline class="spark-line" points="${polyline(points, 120, 28, 2)}"/></svg>`;
}

/** Several series on one 0–100 scale (a comparison), one line each, coloured by position (series-0 … series-4). */
export function multiline(series: ReadonlyArray<{ name: string; points: readonly SparkPoint[] }>, caption: string): Html {
  const width = 640;
  const height = 200;
  const pad = 8;
  const lines = series.map(
    (s, i) =>
      html`<polyline class="series series-${i}" points="${polyline(s.points, width, height, pad)}"><title>${s.name}</title></polyline>`,
  );
  return html`<svg class="compare-chart" role="img" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"><title>${caption}</title><line class="axis" x1="${pad}" y1="${height - pad}" x2="${width - pad}" y2="${height - pad}"/>${lines}</svg>`;
}
