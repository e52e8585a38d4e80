// Fitting the modifier readings of pain and intent on collected evidence: the
// saturation point is found on one half of the phrases and checked on the
// other, beside the shipped one; unreadable phrases are set aside with why.
import { describe, expect, it } from 'vitest';
import { modifierRequest } from '../../src/domain/research/modifier-evidence.js';
import { fitEvidence, fitRows, isCollectedEvidence, type CollectedEvidence } from '../../src/domain/scoring/evidence-fit.js';
import { SIGNAL_SATURATION } from '../../src/domain/scoring/dimension-scores.js';

/** A phrase whose pain share of searches is `pain` and intent share `intent`, listed as a world with saturation points `truth` would list it. */
function record(phrase: string, pain: number, intent: number, truth = { pain: 0.04, intent: 0.1 }): CollectedEvidence {
  const request = modifierRequest(phrase)!;
  const shares = [1, pain, intent, 0.01];
  // Twenty listed queries: as many carry pain (intent) words as a list score of min(1, share / truth) asks.
  const listed = (share: number, saturation: number, list: number) => Math.round(20 * list * Math.min(1, share / saturation));
  const painQueries = listed(pain, truth.pain, SIGNAL_SATURATION.pain.lists);
  const intentQueries = listed(intent, truth.intent, SIGNAL_SATURATION.intent.lists);
  const labels = [
    ...Array.from({ length: painQueries }, (_, i) => `${phrase} fix ${i}`),
    ...Array.from({ length: intentQueries }, (_, i) => `${phrase} price ${i}`),
  ];
  while (labels.length < 20) labels.push(`${phrase} ideas ${labels.length}`);
  return {
    phrase,
    geo: '',
    collected_at: '2026-11-25T00:00:00Z',
    provider: 'google',
    related_queries: { served: 'listed', top: labels.map((label, i) => ({ label, value: 100 - i })), rising: [] },
    modifier_comparison: {
      outcome: 'served',
      keywords: request.keywords,
      points: Array.from({ length: 52 }, (_, w) => ({
        date: `2026-${String(1 + Math.floor(w / 5)).padStart(2, '0')}-01`,
        values: shares.map((s) => Math.round(60 * s)),
        hasData: shares.map(() => true),
        isPartial: false,
      })),
    },
  };
}

describe('fitting pain and intent on collected evidence', () => {
  const phrases = Array.from({ length: 40 }, (_, i) => `idea number ${i}`);
  const records = phrases.map((p, i) => record(p, 0.005 + (i % 10) * 0.006, 0.02 + (i % 8) * 0.02));

  it('finds the saturation point the evidence holds on one half, and agrees better with it on the other than the shipped point', () => {
    const fit = fitEvidence(records);
    expect(fit).toMatchObject({ phrases: 40, usable: 40, live: 40, enough: true, required: 30 });
    expect(fit.families.pain.fitted_at_edge).toBe(false);
    const pain = fit.families.pain;
    expect(pain.fit_rows + pain.check_rows).toBe(40);
    expect(pain.fit_rows).toBeGreaterThan(10);
    expect(pain.fitted_saturation!).toBeGreaterThan(0.03);
    expect(pain.fitted_saturation!).toBeLessThan(0.05);
    expect(pain.check_mae_fitted!).toBeLessThan(pain.check_mae_shipped!);
    expect(pain.check_spearman!).toBeGreaterThan(0.8);
    expect(fit.families.intent.fitted_saturation!).toBeGreaterThan(0.08);
    expect(fit.families.intent.fitted_saturation!).toBeLessThan(0.13);
  });

  it('splits by phrase, not by order: the same file reversed gives the same figures', () => {
    expect(fitEvidence([...records].reverse())).toEqual(fitEvidence(records));
  });

  it('counts only evidence from live Google toward validation: a simulated world shows the method, not agreement', () => {
    const simulated = records.map((r) => ({ ...r, provider: 'synthetic' }));
    expect(fitEvidence(simulated)).toMatchObject({ usable: 40, live: 0, enough: false });
    expect(isCollectedEvidence(records[0])).toBe(true);
    for (const junk of [null, 1, { phrase: 1 }, { phrase: 'x', provider: 'google', related_queries: {} }])
      expect(isCollectedEvidence(junk)).toBe(false);
  });

  it('sets aside a phrase with nothing listed, a comparison not served, or numbers that contradict each other, saying why; under 30 usable it is not enough', () => {
    const empty = { ...records[0]!, related_queries: { served: 'empty', top: [], rising: [] } };
    const failed = {
      ...records[1]!,
      modifier_comparison: { ...records[1]!.modifier_comparison, outcome: 'failed', reason: 'refused (400)' },
    };
    const contradicting = record('idea number 2', 3, 3); // families three times the phrase (capped at 100)
    expect(fitRows(empty).reason).toBe('related queries empty');
    expect(fitRows(failed).reason).toBe('modifier comparison failed: refused (400)');
    expect(fitRows(contradicting).reason).toMatch(/^pain: contradictory numbers/);
    const fit = fitEvidence([empty, failed, contradicting, ...records.slice(3, 20)]);
    expect(fit).toMatchObject({ usable: 17, enough: false });
    expect(fit.skipped.map((s) => s.phrase)).toEqual(['idea number 0', 'idea number 1', 'idea number 2']);
  });
});
