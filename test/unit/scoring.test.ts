import { sampleCorrelation } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { lastWindowRescaled } from '../../src/demo/demo-seed.js';
import { DIMENSIONS, DIMENSION_WEIGHTS, unsupported, type DimensionScores } from '../../src/domain/scoring/dimensions.js';
import { scoreMomentum } from '../../src/domain/scoring/momentum.js';
import { combineScores } from '../../src/domain/scoring/overall.js';
import { realSeries } from '../support/shared-data.js';

function rank(values: number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  order.forEach(([, i], r) => (ranks[i] = r));
  return ranks;
}

describe('momentum on real Google Trends series', () => {
  it('orders 30-day windows the way their last week compares to their first week', async () => {
    const scores: number[] = [];
    const ratios: number[] = [];
    for (const points of (await realSeries()).values()) {
      const window = lastWindowRescaled(points, 30);
      const first = window.slice(0, 7).reduce((s, p) => s + p.value, 0);
      const last = window.slice(-7).reduce((s, p) => s + p.value, 0);
      const result = scoreMomentum(window);
      if (result.score === null || first === 0 || last === 0) continue;
      scores.push(result.score);
      ratios.push(Math.log(last / first));
    }
    expect(scores.length).toBeGreaterThan(300);
    // Spearman rank correlation: the least-squares trend and the week ratio agree on most series.
    expect(sampleCorrelation(rank(scores), rank(ratios))).toBeGreaterThan(0.8);
  });

  it('is symmetric: a series played backwards scores 1 − its score', async () => {
    const series = [...(await realSeries()).values()].slice(0, 50);
    for (const points of series) {
      const window = lastWindowRescaled(points, 30);
      const forward = scoreMomentum(window).score;
      const backward = scoreMomentum(window.map((p, i) => ({ date: window[i]!.date, value: window[window.length - 1 - i]!.value }))).score;
      if (forward === null || backward === null) continue;
      expect(forward + backward).toBeCloseTo(1, 2);
    }
  });

  it('withholds a score, with the reason, when the series cannot support one', () => {
    const short = Array.from({ length: 10 }, (_, i) => ({ date: `2026-01-${String(i + 1).padStart(2, '0')}`, value: 50 }));
    expect(scoreMomentum(short)).toMatchObject({ score: null, explanation: expect.stringMatching(/at least 14/) });
    const zeros = Array.from({ length: 30 }, (_, i) => ({ date: `2026-01-${String(i + 1).padStart(2, '0')}`, value: 0 }));
    expect(scoreMomentum(zeros)).toMatchObject({ score: null, explanation: expect.stringMatching(/all zeros/) });
  });

  it('ignores a trailing partial day, which always reads low', () => {
    const flat = Array.from({ length: 30 }, (_, i) => ({ date: `2026-01-${String(i + 1).padStart(2, '0')}`, value: 60 }));
    const withPartial = [...flat.slice(0, 29), { date: '2026-01-30', value: 5, isPartial: true }];
    expect(scoreMomentum(withPartial).score).toBe(0.5);
    expect(scoreMomentum(withPartial).evidence.points).toBe(29);
  });
});

describe('overall score', () => {
  const all = (score: number | null): DimensionScores =>
    Object.fromEntries(DIMENSIONS.map((d) => [d, score === null ? unsupported('x') : { score, evidence: {}, explanation: '' }])) as unknown as DimensionScores;

  it('has weights that sum to 1', () => {
    expect(Object.values(DIMENSION_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('is the weighted mean of the scored dimensions', () => {
    const dims = all(0.5);
    dims.demand = { score: 1, evidence: {}, explanation: '' };
    // 0.2·1 + 0.8·0.5 = 0.6
    expect(combineScores(dims, 1)).toEqual({ score: 0.6, confidence: 1, scoredDimensions: 8 });
  });

  it('lowers the confidence, not the score, when evidence is missing', () => {
    const dims = all(null);
    dims.momentum = { score: 0.8, evidence: {}, explanation: '' };
    dims.pain = { score: 0.6, evidence: {}, explanation: '' };
    const result = combineScores(dims, 0.9);
    expect(result.score).toBeCloseTo(0.7, 3);
    expect(result.confidence).toBeCloseTo(0.3 * 0.9, 3);
    expect(combineScores(all(null), 1)).toEqual({ score: 0, confidence: 0, scoredDimensions: 0 });
  });
});
