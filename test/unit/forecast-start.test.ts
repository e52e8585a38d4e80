// The forecast starts the day after the last day of data (founder review, issue 47): research drops
// Google's partial today before fitting, and a table that began on that day restated a day the chart shows.
import { describe, expect, it } from 'vitest';
import { forecast, forecastValues } from '../../src/domain/forecast/forecaster.js';

const day = (i: number) => new Date(Date.UTC(2026, 8, 1) + i * 86_400_000).toISOString().slice(0, 10);
const values = Array.from({ length: 89 }, (_, i) => 40 + 8 * Math.sin((2 * Math.PI * i) / 7) + (i % 5));
const dates = values.map((_, i) => day(i));

describe('the 7-day forecast’s first day', () => {
  it('is the day after the last fitted day when no later day of data exists', () => {
    const f = forecast(dates, values, 7);
    if (f.withheld) throw new Error(f.reason);
    expect(f.points[0]!.date).toBe(day(89));
    expect(f.points).toHaveLength(7);
  });

  it('is the day after the partial last day of data, with the values and intervals of those days', () => {
    const f = forecast(dates, values, 7, day(89));
    if (f.withheld) throw new Error(f.reason);
    expect(f.points.map((p) => p.date)).toEqual(Array.from({ length: 7 }, (_, h) => day(90 + h)));
    // The same model and backtest; the values are the 8-day forecast's last 7 days.
    const eight = forecastValues(values, 8);
    const seven = forecastValues(values, 7);
    if ('withheld' in eight || 'withheld' in seven) throw new Error('withheld');
    expect(f.model).toBe(seven.model);
    expect(f.backtest).toEqual(seven.backtest);
    if (eight.model === seven.model) expect(f.points.map((p) => p.value)).toEqual(eight.point.slice(1).map((v) => Math.round(v * 10) / 10));
  });
});
