// The decision summary: every sentence rests on evidence the insight serves
// (each JSON Pointer resolves to a value), and what it says follows the scores.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decisionSummary, type DecisionInput } from '../../src/domain/research/decision-summary.js';
import { resolvePointer } from '../../src/domain/reports/json-pointer.js';
import { DIMENSIONS, type DimensionScore } from '../../src/domain/scoring/dimensions.js';
import { scoreDemand, scoreDurability } from '../../src/domain/scoring/dimension-scores.js';
import { assessMomentum } from '../../src/domain/scoring/momentum.js';

const unscored = (why: string): DimensionScore => ({ score: null, evidence: {}, explanation: why });
const scored = (score: number, extra: Partial<DimensionScore> = {}): DimensionScore => ({
  score,
  evidence: { sources: 'related queries', list_matched: 3 },
  explanation: `Read ${score} from the lists.`,
  ...extra,
});

function insightWith(
  dimensions: Partial<DecisionInput['dimensions']>,
  extra: Partial<DecisionInput> = {},
): DecisionInput & Record<string, unknown> {
  return {
    primary_keyword: 'meal planner',
    confidence: 0.8,
    trend_class: 'stable',
    trend_class_evidence: { rule: 'r', claim: 'c' },
    dimensions: Object.fromEntries(
      DIMENSIONS.map((d) => [d, dimensions[d] ?? unscored(`${d}: not enough data`)]),
    ) as DecisionInput['dimensions'],
    ...extra,
  };
}

const everySentence = (s: ReturnType<typeof decisionSummary>) => [...s.signals, ...s.risks, ...s.validate_first, ...s.why_now];

describe('the decision summary', () => {
  it('names strengths, risks, what to validate first and why now, each sentence with evidence that resolves', () => {
    const momentum = assessMomentum({
      days30: Array.from({ length: 30 }, (_, i) => ({
        date: new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10),
        value: 40 + i,
      })),
    }).momentum;
    const insight = insightWith({
      demand: scoreDemand({ anchor: 'weather', phraseMean: 30, anchorMean: 20 }),
      momentum,
      durability: scoreDurability({ trajectory: 'rising', change: 0.4, lastVsPeak: 0.9, fad: false, years: 5 }),
      reach: scored(0.7),
      breadth: scored(0.65),
      pain: scored(0.2, { experimental: true }),
      intent: scored(0.3, { strength: 0.5 }),
      whitespace: scored(0.25),
    });
    const s = decisionSummary(insight);
    // The three best non-experimental scores of at least 0.6, best first.
    const strengths = DIMENSIONS.filter((d) => (insight.dimensions[d].score ?? 0) >= 0.6 && !insight.dimensions[d].experimental)
      .sort((a, b) => insight.dimensions[b].score! - insight.dimensions[a].score!)
      .slice(0, 3);
    expect(s.signals.map((x) => x.evidence[0])).toEqual(strengths.map((d) => `/dimensions/${d}/score`));
    expect(s.risks[0]!.text).toMatch(/^Pain 0\.20 \(experimental\)|^Whitespace 0\.25/);
    expect(s.validate_first[0]!.text).toMatch(/^How many people search for "meal planner": demand is relative to "weather"/);
    expect(s.validate_first.some((x) => /^Whether people will pay: buyer intent scored 0\.30 from thin evidence/.test(x.text))).toBe(true);
    // First the one statement of direction over every reading, then the readings themselves.
    expect(s.why_now[0]!.text).toMatch(/^Direction[:,] /);
    // No paragraph twice: momentum, read among the signals, is not read again in why now.
    expect(s.signals.some((x) => x.evidence[0] === '/dimensions/momentum/score')).toBe(true);
    expect(s.why_now.some((x) => /^Momentum is a prediction/.test(x.text))).toBe(false);
    const texts = everySentence(s).map((x) => x.text);
    expect(new Set(texts).size).toBe(texts.length);
    for (const group of [s.signals, s.risks, s.validate_first, s.why_now]) expect(group.length).toBeLessThanOrEqual(3);
    // A momentum neither strong nor weak is read in why now, once.
    const level = decisionSummary({ ...insight, dimensions: { ...insight.dimensions, momentum: { ...momentum, score: 0.5 } } });
    expect(level.why_now.filter((x) => /^Momentum is a prediction/.test(x.text))).toHaveLength(1);
    expect(level.signals.concat(level.risks).some((x) => x.evidence[0] === '/dimensions/momentum/score')).toBe(false);
    for (const sentence of everySentence(s)) {
      expect(sentence.evidence.length, sentence.text).toBeGreaterThan(0);
      for (const pointer of sentence.evidence)
        expect(resolvePointer(insight, pointer), `${pointer} of "${sentence.text}"`).not.toBeUndefined();
    }
  });

  it('reads the same outlook horizon as the direction, never one whose months before average under 1', () => {
    // The 3-month horizon's base (0.4) is under Google's resolution: both the direction and the outlook's sentence
    // read the 6-month one, so "why now" never cites one horizon in one sentence and another in the next.
    const outlook = {
      withheld: false,
      horizons: [
        { withheld: false, months: 3, value: 0, recent: 0.4 },
        { withheld: false, months: 6, value: 50, recent: 40 },
      ],
    };
    const insight = insightWith({ reach: scored(0.7) }, { outlook });
    const cited = decisionSummary(insight)
      .why_now.flatMap((x) => x.evidence)
      .filter((pointer) => pointer.startsWith('/outlook/'));
    expect(cited).toContain('/outlook/horizons/1/recent');
    expect(cited.filter((pointer) => !pointer.startsWith('/outlook/horizons/1/'))).toEqual([]);
    expect(
      decisionSummary({ ...insight, outlook: { ...outlook, horizons: [outlook.horizons[0]] } }).why_now.some((x) =>
        x.evidence.some((pointer) => pointer.startsWith('/outlook/')),
      ),
    ).toBe(false);
  });

  it('says a thin insight is partial, and never states a strength it has no score for', () => {
    const s = decisionSummary(insightWith({ momentum: scored(0.9) }, { confidence: 0.11 }));
    expect(s.signals.map((x) => x.text.split(' ')[0])).toEqual(['Momentum']);
    expect(s.risks[0]!.text).toMatch(/^Thin evidence: 1 of 8 dimensions could be scored \(confidence 0\.11\)/);
  });

  it('holds for every mix of scores: no sentence without evidence, every pointer resolves', () => {
    const dimension = fc.oneof(
      fc.constant(unscored('not read')),
      fc
        .record({
          score: fc.double({ min: 0, max: 1, noNaN: true }),
          strength: fc.double({ min: 0.2, max: 1, noNaN: true }),
          experimental: fc.boolean(),
        })
        .map(({ score, strength, experimental }) =>
          scored(Math.round(score * 1000) / 1000, { strength, ...(experimental ? { experimental: true } : {}) }),
        ),
    );
    fc.assert(
      fc.property(fc.tuple(...DIMENSIONS.map(() => dimension)), fc.constantFrom(null, 'rising', 'peaked'), (dims, trendClass) => {
        const insight = insightWith(Object.fromEntries(DIMENSIONS.map((d, i) => [d, dims[i]!])), { trend_class: trendClass });
        for (const sentence of everySentence(decisionSummary(insight))) {
          expect(sentence.evidence.length).toBeGreaterThan(0);
          for (const pointer of sentence.evidence) expect(resolvePointer(insight, pointer), pointer).not.toBeUndefined();
        }
      }),
      { numRuns: 300 },
    );
  });
});
