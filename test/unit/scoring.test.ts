import { describe, expect, it } from 'vitest';
import {
  DESIGNED_WEIGHTS,
  DIMENSIONS,
  DIMENSION_WEIGHTS,
  EXPERIMENTAL_DIMENSIONS,
  TOTAL_WEIGHT,
  unsupported,
  type DimensionScores,
} from '../../src/domain/scoring/dimensions.js';
import { assessMomentum, FALLING_AT, RISING_AT } from '../../src/domain/scoring/momentum.js';
import { combineScores, SOURCE_CERTAINTY } from '../../src/domain/scoring/overall.js';
import { VERDICT_RULE } from '../../src/domain/research/verdict.js';

const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
const seriesOf = (values: number[]) => values.map((value, i) => ({ date: day(i), value }));

describe('momentum', () => {
  it('scores a last week above the month as rising and one below as falling, on both models', () => {
    const base = Array.from({ length: 83 }, (_, i) => 40 + (i % 7) * 2);
    const up = seriesOf([...base, 70, 72, 75, 74, 78, 80, 82]);
    const down = seriesOf([...base, 22, 20, 18, 19, 17, 15, 14]);
    expect(assessMomentum({ days30: up.slice(-30), days90: up }).momentum.score).toBeGreaterThanOrEqual(RISING_AT);
    expect(assessMomentum({ days30: down.slice(-30), days90: down }).momentum.score).toBeLessThanOrEqual(FALLING_AT);
    expect(assessMomentum({ days30: up.slice(-30) }).momentum.evidence.model).toBe('30d');
    expect(assessMomentum({ days30: up.slice(-30), days90: up }).momentum.evidence.model).toBe('90d');
  });

  it('counts a month that jumped above the month two months before against momentum (it tends to revert)', () => {
    const flatWeek = (level: number) => Array.from({ length: 30 }, () => level);
    const jumped = seriesOf([...flatWeek(20), ...flatWeek(20), ...flatWeek(60)]);
    const steady = seriesOf([...flatWeek(60), ...flatWeek(60), ...flatWeek(60)]);
    const a = assessMomentum({ days30: jumped.slice(-30), days90: jumped }).momentum.score!;
    const b = assessMomentum({ days30: steady.slice(-30), days90: steady }).momentum.score!;
    expect(a).toBeLessThan(b);
  });

  it('withholds a score, with the reason, when the series cannot support one', () => {
    expect(assessMomentum({ days30: seriesOf(Array(10).fill(50)) }).momentum).toMatchObject({
      score: null,
      explanation: expect.stringMatching(/at least 14/),
    });
    expect(assessMomentum({ days30: seriesOf(Array(30).fill(0)), days90: seriesOf(Array(90).fill(0)) })).toMatchObject({
      momentum: { score: null, explanation: expect.stringMatching(/all zeros/) },
      trend: null,
    });
  });

  it('ignores a trailing partial day, which always reads low', () => {
    const flat = seriesOf(Array(30).fill(60));
    const withPartial = [...flat.slice(0, 29), { date: day(29), value: 5, isPartial: true }];
    const { momentum } = assessMomentum({ days30: withPartial });
    expect(momentum.evidence.points).toBe(29);
    expect(momentum.score).toBe(assessMomentum({ days30: flat.slice(0, 29) }).momentum.score);
  });

  it('links its evidence to the published methodology', () => {
    const { momentum } = assessMomentum({ days30: seriesOf(Array.from({ length: 30 }, (_, i) => 30 + i)) });
    expect(momentum.evidence.methodology).toBe('/api/methodology#momentum');
  });
});

describe('overall score', () => {
  const all = (score: number | null): DimensionScores =>
    Object.fromEntries(
      DIMENSIONS.map((d) => [d, score === null ? unsupported('x') : { score, evidence: {}, explanation: '' }]),
    ) as unknown as DimensionScores;

  it('has designed weights that sum to 1, and weighs the experimental dimensions (pain, intent: not validated yet) at half', () => {
    expect(Object.values(DESIGNED_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
    expect(Object.keys(EXPERIMENTAL_DIMENSIONS).sort()).toEqual(['intent', 'pain']);
    expect(DIMENSION_WEIGHTS).toEqual({ ...DESIGNED_WEIGHTS, pain: 0.075, intent: 0.075 });
    expect(TOTAL_WEIGHT).toBeCloseTo(0.85, 10);
  });

  it('is the weighted mean of the scored dimensions', () => {
    const dims = all(0.5);
    dims.demand = { score: 1, evidence: {}, explanation: '' };
    // (0.2·1 + 0.65·0.5) / 0.85 = 0.618
    expect(combineScores(dims, 1)).toEqual({ score: 0.618, confidence: 1, scoredDimensions: 8 });
  });

  it('lowers the confidence, not the score, when evidence is missing', () => {
    const dims = all(null);
    dims.momentum = { score: 0.8, evidence: {}, explanation: '' };
    dims.pain = { score: 0.6, evidence: {}, explanation: '' };
    const result = combineScores(dims, 0.9);
    expect(result.score).toBeCloseTo((0.15 * 0.8 + 0.075 * 0.6) / 0.225, 3);
    expect(result.confidence).toBeCloseTo((0.225 / 0.85) * 0.9, 3);
    expect(combineScores(all(null), 1)).toEqual({ score: 0, confidence: 0, scoredDimensions: 0 });
  });

  // Founder review (issue 47): every simulated insight read confidence 1.00, as if a demo were certain.
  it('never reads simulated data as certain: its confidence is at most the simulation’s certainty, the score unchanged', () => {
    const dims = all(0.6);
    const live = combineScores(dims, 1, SOURCE_CERTAINTY.live);
    const simulated = combineScores(dims, 1, SOURCE_CERTAINTY.simulated);
    expect(live.confidence).toBe(1);
    expect(simulated.score).toBe(live.score);
    expect(simulated.confidence).toBe(SOURCE_CERTAINTY.simulated);
    expect(simulated.confidence).toBeLessThan(1);
    // Thin evidence lowers it further: a simulation with thin evidence falls below the verdict's floor.
    expect(combineScores(dims, 0.6, SOURCE_CERTAINTY.simulated).confidence).toBeLessThan(VERDICT_RULE.minConfidence);
    expect(SOURCE_CERTAINTY.simulated).toBeGreaterThan(VERDICT_RULE.minConfidence);
  });
});
