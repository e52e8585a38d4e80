// The published validity (backtest-results.ts, served by GET /api/methodology)
// is what the backtest measures on the shared series, figure for figure, and
// it meets the targets momentum was redesigned for.
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKTEST } from '../../src/domain/scoring/backtest-results.js';
import { momentumWindows, publishedFigures, spearman, type MomentumWindow } from '../../src/domain/scoring/momentum-backtest.js';
import { classifyTrend, TREND_CLASSES, yearlySeasonality } from '../../src/domain/scoring/trend-class.js';
import { momentumFeatures } from '../../src/domain/scoring/momentum-features.js';
import { momentumV1 } from '../../bench/lib/momentum-v1.js';
import { itWithSharedData, realSeries, SHARED_DATA_PRESENT } from '../support/shared-data.js';

let windows: MomentumWindow[];
beforeAll(async () => {
  windows = [];
  if (!SHARED_DATA_PRESENT) return; // the test that reads them is skipped, saying why
  for (const [id, points] of await realSeries())
    windows.push(
      ...momentumWindows(
        id,
        points.map((p) => p.value),
      ),
    );
});

describe('the momentum backtest', () => {
  itWithSharedData('measures exactly what backtest-results.ts publishes', () => {
    const measured = publishedFigures(windows, (w) => momentumV1(w.days30));
    expect(measured.windows).toEqual(BACKTEST.windows);
    expect(measured.momentum).toEqual(BACKTEST.momentum);
    for (const c of TREND_CLASSES) {
      const { note: _note, ...published } = BACKTEST.trendClasses[c];
      expect(measured.trendClasses[c], c).toEqual(published);
    }
  });

  it('meets the targets on the held-out half', () => {
    const m = BACKTEST.momentum.held_out;
    expect(m.rank_correlation).toBeGreaterThanOrEqual(0.35);
    expect(m.higher_when_rising).toBeGreaterThanOrEqual(0.65);
    expect(m.higher_when_falling).toBeLessThanOrEqual(0.35);
    expect(m.labelled_share).toBeGreaterThanOrEqual(1 / 3);
    expect(m.rank_correlation).toBeGreaterThan(BACKTEST.momentum.previous_formula_held_out.rank_correlation);
  });

  it("gives every class with a checkable claim a hit rate above the claim's base rate", () => {
    for (const c of TREND_CLASSES) {
      const f = BACKTEST.trendClasses[c];
      if (f.hit_rate === null) continue;
      expect(f.hit_rate, c).toBeGreaterThan(f.base_rate!);
    }
  });
});

describe('spearman', () => {
  it('is 1 for the same order, −1 for the reverse, and averages ties', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 10);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 10);
    expect(spearman([1, 1, 2], [1, 2, 3])).toBeCloseTo(0.866, 3);
  });
});

describe('trend classes', () => {
  const features = (values: number[]) => momentumFeatures(values.slice(-30), values)!;
  it('calls a spike that has faded "peaked"', () => {
    const v = Array.from({ length: 90 }, (_, i) => (i === 50 ? 100 : i > 50 && i < 55 ? 60 : 10));
    expect(classifyTrend(features(v), null).trendClass).toBe('peaked');
  });
  it('calls a doubled month that holds "exploding"', () => {
    const v = Array.from({ length: 90 }, (_, i) => (i < 60 ? 20 : 50 + (i >= 83 ? 5 : 0)));
    expect(classifyTrend(features(v), null).trendClass).toBe('exploding');
  });
  it('calls a yearly pattern "seasonal", and a steady rise not', () => {
    const seasonal = Array.from({ length: 260 }, (_, w) => 50 + 30 * Math.sin((2 * Math.PI * w) / 52));
    const rise = Array.from({ length: 260 }, (_, w) => 10 + w * 0.3);
    expect(yearlySeasonality(seasonal)).toBeGreaterThan(0.9);
    expect(yearlySeasonality(rise) ?? 0).toBeLessThan(0.5);
    expect(yearlySeasonality(seasonal.slice(0, 100))).toBeNull();
    expect(classifyTrend(features(Array(90).fill(40)), yearlySeasonality(seasonal)).trendClass).toBe('seasonal');
  });
  it('calls a flat series "stable"', () => {
    expect(classifyTrend(features(Array.from({ length: 90 }, (_, i) => 40 + (i % 7))), null).trendClass).toBe('stable');
  });
});
