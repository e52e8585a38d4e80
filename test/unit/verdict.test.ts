// The verdict: the published rule (docs/research.md, "The verdict") applied to
// scores, the same for a list entry and for the insight, and every pointer it
// cites resolving in the insight.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolvePointer } from '../../src/domain/reports/json-pointer.js';
import { verdictOf, VERDICT_LABELS } from '../../src/domain/research/verdict.js';
import { DIMENSIONS, type Dimension } from '../../src/domain/scoring/dimensions.js';

type Scores = Record<Dimension, number | null>;
const all = (score: number | null, overrides: Partial<Scores> = {}): Scores =>
  ({ ...Object.fromEntries(DIMENSIONS.map((d) => [d, score])), ...overrides }) as Scores;
const insightOf = (overall: number, confidence: number, scores: Scores) => ({
  overall_score: overall,
  confidence,
  dimensions: Object.fromEntries(
    DIMENSIONS.map((d) => [d, { score: scores[d], evidence: {}, explanation: scores[d] === null ? 'no data' : 'read' }]),
  ),
});

describe('verdictOf', () => {
  it('is promising with a strong score, enough evidence and no weak core dimension, naming the strongest reason', () => {
    const v = verdictOf({ overall_score: 0.7, confidence: 0.9, dimension_scores: all(0.6, { demand: 0.83, whitespace: 0.4 }) });
    expect(v.label).toBe('promising');
    expect(v.reason).toBe('many people search for it (demand 0.83)');
    expect(v.risk).toBe('no dimension is weak; the lowest is whitespace 0.40');
    expect(v.text).toBe(
      'Promising (overall 0.70, confidence 0.90): many people search for it (demand 0.83); the biggest risk: no dimension is weak; the lowest is whitespace 0.40.',
    );
  });

  it('labels from the score as printed: two scores printed "45 of 100" get one label (founder review, issue 47)', () => {
    const printed = (x: number) => `${Math.round(x * 100)} of 100`;
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: -0.004, max: 0.004, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (overall, nudge, core) => {
          const other = Math.min(1, Math.max(0, overall + nudge));
          if (printed(overall) !== printed(other)) return;
          const scores = all(0.6, { demand: core });
          const a = verdictOf({ overall_score: overall, confidence: 0.9, dimension_scores: scores });
          const b = verdictOf({ overall_score: other, confidence: 0.9, dimension_scores: scores });
          expect(a.label, `${overall} and ${other}, both ${printed(overall)}`).toBe(b.label);
        },
      ),
      { numRuns: 2000 },
    );
    const at = (overall: number) => verdictOf({ overall_score: overall, confidence: 0.9, dimension_scores: all(0.6) }).label;
    expect([at(0.454), at(0.446)]).toEqual(['mixed', 'mixed']);
    expect(at(0.444)).toBe('weak');
    // A core dimension printed 0.35 is a risk, whatever its third decimal.
    const core = (demand: number) => verdictOf({ overall_score: 0.7, confidence: 0.9, dimension_scores: all(0.6, { demand }) }).label;
    expect([core(0.354), core(0.346)]).toEqual(['mixed', 'mixed']);
  });

  it('speaks of regions, not countries, for a run in one market (founder review, issue 47)', () => {
    const scores = all(0.5, { reach: 0.9, demand: 0.4 });
    const us = verdictOf({ overall_score: 0.55, confidence: 0.9, geo: 'US', dimension_scores: scores });
    expect(us.reason).toBe('it is searched in many regions of its market (reach 0.90)');
    expect(us.text).not.toMatch(/countries/);
    const world = verdictOf({ overall_score: 0.55, confidence: 0.9, geo: '', dimension_scores: scores });
    expect(world.reason).toBe('it is searched in many countries (reach 0.90)');
    const low = verdictOf({ overall_score: 0.55, confidence: 0.9, geo: 'GB', dimension_scores: all(0.5, { reach: 0.1 }) });
    expect(low.risk).toBe('it is searched in few regions of its market (reach 0.10)');
  });

  it('is mixed, not promising, when a core dimension is weak however high the overall score, and names it as the risk', () => {
    const v = verdictOf({ overall_score: 0.72, confidence: 0.9, dimension_scores: all(0.8, { intent: 0.3, reach: 0.2 }) });
    expect(v.label).toBe('mixed');
    expect(v.risk).toBe('searches for it rarely carry buying words (buyer intent 0.30)');
    expect(v.evidence).toContain('/dimensions/intent/score');
  });

  it('names low whitespace without claiming brands crowd it: comparisons alone can lower it (founder review)', () => {
    const v = verdictOf({ overall_score: 0.5, confidence: 0.9, dimension_scores: all(0.6, { whitespace: 0.19 }) });
    expect(v.risk).toBe('many searches for it compare options or name brands (whitespace 0.19)');
    expect(v.text).not.toMatch(/crowd/);
  });

  it('is weak below 0.45 and unproven with fewer than 5 dimensions or a low confidence, whatever the score', () => {
    expect(verdictOf({ overall_score: 0.44, confidence: 1, dimension_scores: all(0.44) }).label).toBe('weak');
    expect(verdictOf({ overall_score: 0.45, confidence: 1, dimension_scores: all(0.45) }).label).toBe('mixed');
    const demo = verdictOf({ overall_score: 0.83, confidence: 0.11, dimension_scores: all(null, { momentum: 0.83 }) });
    expect(demo.label).toBe('unproven');
    expect(demo.risk).toBe('only 1 of 8 dimensions could be scored (confidence 0.11), so the score says little');
    expect(verdictOf({ overall_score: 0.8, confidence: 0.39, dimension_scores: all(0.8) }).label).toBe('unproven');
  });

  it('says so when no dimension is strong or none is scored', () => {
    expect(verdictOf({ overall_score: 0.3, confidence: 1, dimension_scores: all(0.3) }).reason).toBe(
      'no dimension is strong; the highest is demand 0.30',
    );
    expect(verdictOf({ overall_score: 0, confidence: 0, dimension_scores: all(null) }).reason).toBe('no dimension could be scored');
  });

  it('gives a list entry and its insight the same verdict, one of the labels, citing only what the insight serves', () => {
    const score = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null });
    fc.assert(
      fc.property(
        fc.record(Object.fromEntries(DIMENSIONS.map((d) => [d, score])) as Record<Dimension, fc.Arbitrary<number | null>>),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (scores, overall, confidence) => {
          const insight = insightOf(overall, confidence, scores);
          const fromInsight = verdictOf(insight);
          expect(verdictOf({ overall_score: overall, confidence, dimension_scores: scores })).toEqual(fromInsight);
          expect(VERDICT_LABELS).toContain(fromInsight.label);
          for (const pointer of fromInsight.evidence) expect(resolvePointer(insight, pointer), pointer).not.toBeUndefined();
        },
      ),
    );
  });
});
