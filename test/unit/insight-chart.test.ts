// The insight chart joins its series to the 7-day forecast only on one scale:
// Google scales each request to its own peak, so the 30 days and the 90 days the
// forecast is fitted on are two scales (a demo chart joined a 30-day line ending
// at 59 to a forecast starting at 13.5). Read back from the SVG it draws.
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { forecastOnSeries, renderInsightChart, type ChartForecastPoint } from '../../src/domain/charts/insight-chart.js';
import { forecast as fitForecast } from '../../src/domain/forecast/forecaster.js';
import { renderUsageChart } from '../../src/domain/charts/usage-chart.js';

const day = (i: number) => new Date(Date.UTC(2026, 8, 1) + i * 86_400_000).toISOString().slice(0, 10);
const rescaled = (values: number[]) => {
  const max = Math.max(...values);
  return values.map((v) => Math.round((v * 100) / max));
};

// 90 days with an early peak: the last 30, scaled to their own peak, read much higher than on the 90 days' scale.
const raw = Array.from({ length: 90 }, (_, i) => (i < 20 ? 300 - i * 10 : 40 + 8 * Math.sin(i / 2) + (i % 7 === 5 ? 10 : 0)));
const days90 = rescaled(raw).map((value, i) => ({ date: day(i), value }));
const days30 = rescaled(raw.slice(-30)).map((value, i) => ({ date: day(60 + i), value }));
const fitted = fitForecast(
  days90.map((p) => p.date),
  days90.map((p) => p.value),
  7,
);
const points = (fitted.withheld ? [] : fitted.points) as ChartForecastPoint[];

/** The dashed line's points, as values on the chart's 0–100 axis. */
function dashedValues(svg: string): number[] {
  const d = /<path d="([^"]+)" fill="none" stroke="#1d4ed8" stroke-width="2" stroke-dasharray="6 4"\/>/.exec(svg)?.[1];
  if (!d) return [];
  return [...d.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => Math.round((1 - (Number(m[1]) - 56) / (420 - 56 - 64)) * 1000) / 10);
}

describe('the insight chart', () => {
  it('draws a 90-day forecast beside the 30 days on the 30 days’ scale, and says how', () => {
    expect(points).toHaveLength(7);
    const svg = renderInsightChart({ title: 't', series: days30, forecast: points, forecastFittedOn: days90 }).toString();
    const line = dashedValues(svg);
    // The joined segment starts at the series' last point…
    expect(line[0]).toBeCloseTo(days30.at(-1)!.value, 0);
    // …and continues on the same scale: the forecast times the ratio of the two series over their common days.
    const common = days30.map((p) => [p.value, days90.find((q) => q.date === p.date)!.value] as const);
    const factor = common.reduce((a, [s]) => a + s, 0) / common.reduce((a, [, f]) => a + f, 0);
    expect(factor).toBeGreaterThan(1.5);
    for (const [i, p] of points.entries()) expect(Math.abs(line[i + 1]! - Math.min(100, p.value * factor))).toBeLessThan(0.6);
    expect(svg).toMatch(/rescaled to this one through their 30 common days/);
  });

  it('joins the forecast to the series it was fitted on as it is', () => {
    const svg = renderInsightChart({ title: 't', series: days90, forecast: points, forecastFittedOn: days90 }).toString();
    expect(dashedValues(svg).slice(1)).toEqual(points.map((p) => Math.round(Math.min(100, p.value) * 10) / 10));
    expect(forecastOnSeries(days90, points, days90).note).toBeNull();
  });

  it('keeps a rescaled forecast within 0–100, says how many values it clipped, and writes that note clear of the legend', () => {
    // Founder review (issue 47): rescaled ×3.45, a 95 % interval read "0–215.7" on a 0–100 scale, and the note ran into the legend.
    const low = days30.map((p) => ({ date: p.date, value: Math.max(1, Math.round(p.value / 3.45)) }));
    const wide = points.map((p) => ({ ...p, value: 25, lower_95: 0, upper_95: 62.5, upper_80: 40 }));
    const on = forecastOnSeries(days30, wide, low);
    expect(on.factor).toBeGreaterThan(3);
    for (const p of on.forecast!)
      for (const v of [p.value, p.lower_80, p.upper_80, p.lower_95, p.upper_95]) expect(v).toBeLessThanOrEqual(100);
    expect(on.clipped).toBeGreaterThan(0);
    expect(on.note).toMatch(/clipped to the scale's 0–100/);
    const svg = renderInsightChart({ title: 't', series: days30, forecast: wide, forecastFittedOn: low }).toString();
    const legendY = Math.max(...[...svg.matchAll(/<g transform="translate\([\d.]+,([\d.]+)\)">/g)].map((m) => Number(m[1])));
    const note = /<text x="([\d.]+)" y="([\d.]+)" font-size="11"( text-anchor="end")? fill="#b45309">7-day forecast from/.exec(svg)!;
    // The legend's marks reach 6 below its line and its text 4; the note's 11-pixel letters stand above its baseline.
    expect(Number(note[2]) - 11).toBeGreaterThanOrEqual(legendY + 6);
    expect(note[3]).toBeUndefined();
  });

  it('does not draw a forecast whose scale it cannot know', () => {
    const unknown = renderInsightChart({ title: 't', series: days30, forecast: points }).toString();
    expect(dashedValues(unknown)).toEqual([]);
    expect(unknown).toMatch(/7-day forecast not drawn: the series it was fitted on is not stored/);
    const apart = forecastOnSeries(days30, points, days90.slice(0, 58));
    expect(apart).toMatchObject({ forecast: null, overlap: 0 });
  });
  it('shows markup in every label as text: the title, the caption, the legend, the note, a usage day', () => {
    const markup = "<script>alert(1)</script> \"><img src=x onerror=1> ' onmouseover='";
    const svg = renderInsightChart({
      title: markup,
      caption: markup,
      seriesLabel: markup,
      note: markup,
      series: days30,
      forecast: points,
      forecastFittedOn: days90,
    }).toString();
    expect(svg).not.toMatch(/<script|<img|' onmouseover/);
    // The title in aria-label and <title>, and the title, caption, legend and note as <text>.
    expect(svg.split('&lt;script&gt;alert(1)&lt;/script&gt;').length - 1).toBe(6);
    // Still one well-formed SVG document: nothing broke out of an attribute or an element.
    new SaxesParser().write(svg).close();
    const usage = renderUsageChart([{ day: markup, requests: 3 }], null).toString();
    expect(usage).not.toMatch(/<script|<img/);
    new SaxesParser().write(usage).close();
  });
});
