// No explanation says a number its evidence contradicts: every template of the
// eight dimensions, fed generated evidence (series of every shape, daily and
// weekly; shares, counts and readings of every kind), is checked by
// explanationProblems (growth never below −100 %, shares within 0-100, a
// prediction called one with its hit rate, labels agreeing with the trend class
// or saying why not, durability's shape and trend as its evidence has them).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trajectory, volatility } from '../../src/domain/research/series-analysis.js';
import {
  scoreBreadth,
  scoreDemand,
  scoreDurability,
  scoreIntent,
  scorePain,
  scoreReach,
  scoreWhitespace,
  type SignalInput,
} from '../../src/domain/scoring/dimension-scores.js';
import { explanationProblems } from '../../src/domain/scoring/explanation-check.js';
import { assessMomentum } from '../../src/domain/scoring/momentum.js';
import type { FamilyShare } from '../../src/domain/research/modifier-evidence.js';
import type { TermShare } from '../../src/domain/research/query-signals.js';

const RUNS = 400;
const day = (start: number, i: number, step: number) =>
  new Date(Date.UTC(2026, 0, 1) + (start + i * step) * 86_400_000).toISOString().slice(0, 10);

/** Series of every shape: flat, rising, falling, peaked early or late, spiky, mostly zero, as Google rounds them. */
const seriesValues = (min: number, max: number) =>
  fc
    .record({
      n: fc.integer({ min, max }),
      level: fc.double({ min: 0, max: 100, noNaN: true }),
      slope: fc.double({ min: -3, max: 3, noNaN: true }),
      peakAt: fc.double({ min: 0, max: 1, noNaN: true }),
      peak: fc.double({ min: 0, max: 100, noNaN: true }),
      zeros: fc.double({ min: 0, max: 1, noNaN: true }),
      seed: fc.integer(),
    })
    .map(({ n, level, slope, peakAt, peak, zeros, seed }) => {
      let s = seed;
      const rand = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
      const peakIndex = Math.floor(peakAt * (n - 1));
      const raw = Array.from({ length: n }, (_, i) =>
        rand() < zeros * 0.5 ? 0 : Math.max(0, level + slope * i + (Math.abs(i - peakIndex) < 3 ? peak : 0) + (rand() - 0.5) * 10),
      );
      const top = Math.max(...raw);
      return raw.map((v) => (top > 0 ? Math.round((v * 100) / top) : 0));
    });

const reading = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.constant({ unavailable: 'not read in this case' }));
const termShare: fc.Arbitrary<TermShare> = fc
  .integer({ min: 0, max: 60 })
  .chain((total) =>
    fc
      .integer({ min: 0, max: total })
      .map((matched) => ({ share: total ? matched / total : 0, matched, total, examples: matched ? ['x price'] : [] })),
  );
const familyShare = (family: FamilyShare['family']): fc.Arbitrary<FamilyShare> =>
  fc
    .record({
      ratio: fc.double({ min: 0, max: 3, noNaN: true }),
      phrase_mean: fc.double({ min: 0.5, max: 100, noNaN: true }),
      points: fc.integer({ min: 1, max: 53 }),
    })
    .map(({ ratio, phrase_mean, points }) => ({
      family,
      terms: ['x'],
      share: Math.min(1, ratio),
      ratio,
      ...(ratio > 1.2 ? { contradictory: true } : {}),
      family_mean: ratio * phrase_mean,
      phrase_mean,
      points,
      resolution: 0.5 / phrase_mean,
    }));
const signal = (family: FamilyShare['family']): fc.Arbitrary<SignalInput> =>
  fc.record({ modifiers: reading(familyShare(family)), lists: reading(termShare) });
const topics = fc.record({
  topics: fc.integer({ min: 0, max: 5 }),
  types: fc.array(fc.constantFrom('Topic', 'Company', 'Software', 'Food'), { maxLength: 4 }),
  brand_topics: fc.integer({ min: 0, max: 5 }),
  brand_examples: fc.constant([] as string[]),
});

function check(dimension: string, score: Parameters<typeof explanationProblems>[1]) {
  const problems = explanationProblems(dimension, score);
  expect(problems, problems.join('\n')).toEqual([]);
}

describe('every explanation template reads true of its evidence', () => {
  it('durability: the 5-year shape and its trend, never below −100 %', () => {
    fc.assert(
      fc.property(seriesValues(26, 262), (values) => {
        const t = trajectory(values);
        check(
          'durability',
          scoreDurability(t ? { ...t, fad: volatility(values)?.fad ?? false, years: Math.round((values.length / 52) * 10) / 10 } : null),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('momentum: a prediction with its hit rate, its changes as the evidence has them, daily or weekly points', () => {
    fc.assert(
      fc.property(seriesValues(20, 91), fc.constantFrom(1, 7), fc.constantFrom(null, 0.2, 0.7), (values, step, seasonality) => {
        const points = values.map((value, i) => ({ date: day(0, i, step), value }));
        const { momentum } = assessMomentum({ days30: points.slice(-31), days90: points, yearlySeasonality: seasonality });
        check('momentum', momentum);
        if (step === 7) expect(momentum.score).toBeNull();
      }),
      { numRuns: RUNS },
    );
  });

  it('demand, reach: ratios and counts as measured', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.integer({ min: 0, max: 60 }).chain((withData) =>
          fc.record({
            countriesWithData: fc.constant(withData),
            countriesWithInterest: fc.integer({ min: 0, max: withData }),
            topShare: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
        ),
        (phraseMean, anchorMean, reach) => {
          check('demand', scoreDemand({ anchor: 'weather', phraseMean, anchorMean }));
          check('reach', scoreReach({ ...reach, topCountry: 'United States', citiesWithInterest: 3, comparedWith: null }));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('breadth, pain, intent, whitespace: every mix of readings', () => {
    fc.assert(
      fc.property(
        signal('pain'),
        signal('intent'),
        signal('competition'),
        reading(topics),
        reading(termShare),
        reading(
          fc.record({
            queries: fc.integer({ min: 0, max: 50 }),
            topics: fc.integer({ min: 0, max: 25 }),
            vocabulary: fc.integer({ min: 0, max: 80 }),
          }),
        ),
        (pain, intent, competition, autocomplete, brands, lists) => {
          check('pain', scorePain(pain));
          check('intent', scoreIntent(intent));
          check('whitespace', scoreWhitespace({ comparisons: competition, brands: { autocomplete, lists: brands } }));
          check('breadth', scoreBreadth({ lists, autocomplete, modifiers: { unavailable: 'not asked' } }));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('catches what it is for: a change below −100 % and a prediction that contradicts its label', () => {
    const durability = scoreDurability({ trajectory: 'declining', change: -5.64, lastVsPeak: 0.1, fad: false, years: 5 });
    expect(explanationProblems('durability', durability).join()).toMatch(/−564%|-564%/);
    const { momentum } = assessMomentum({ days30: Array.from({ length: 30 }, (_, i) => ({ date: day(60, i, 1), value: 50 + i })) });
    const relabelled = {
      ...momentum,
      evidence: { ...momentum.evidence, label: momentum.evidence.label === 'rising' ? 'falling' : 'rising' },
    };
    expect(explanationProblems('momentum', relabelled).join()).toMatch(/a prediction other than its label/);
  });
});
