// The learned ranker of the primary phrase (src/domain/research/phrase-ranker.ts, weights fitted by
// scripts/train-phrase-ranker.ts). It is not the default order: cross-validated on 5 folds by idea it put an
// acceptable phrase first for fewer of the 404 labelled ideas than the hand-set rules (docs/research.md).
// These tests hold what it promises as a component: the table fits the features, the order is a
// reordering of the rules' candidates whose priors fall strictly, and its figure on the labelled ideas.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { choosePrimary, measuredPhrases, phraseCandidates, ruledCandidates } from '../../src/domain/research/phrase-choice.js';
import { candidateFeatures, FEATURE_NAMES } from '../../src/domain/research/phrase-features.js';
import { rankCandidates, softmax } from '../../src/domain/research/phrase-ranker.js';
import { PHRASE_RANKER } from '../../src/domain/research/phrase-ranker-weights.js';

const rows = readFileSync(new URL('../fixtures/research/primary-phrases.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => {
    const [set, idea, expected] = l.split('\t');
    return { set: set!, idea: idea!, expected: expected!.split(' | ') };
  });

describe('the learned phrase ranker', () => {
  it('its weights table has one weight per feature, in the features’ order', () => {
    expect(PHRASE_RANKER.features).toEqual([...FEATURE_NAMES]);
    expect(PHRASE_RANKER.weights).toHaveLength(FEATURE_NAMES.length);
    expect(PHRASE_RANKER.weights.every(Number.isFinite)).toBe(true);
  });

  it('reorders the rules’ candidates, no more and no fewer, with priors that fall strictly down the list', () => {
    for (const idea of [
      'App that finds last-minute padel court bookings',
      'Drone roof inspection service for insurers',
      'Telehealth for pets',
    ]) {
      const { chunks, candidates, origins } = ruledCandidates(idea);
      const rows = candidateFeatures(chunks, candidates, origins);
      expect(rows.every((r) => r.length === FEATURE_NAMES.length)).toBe(true);
      const ranked = rankCandidates(chunks, candidates, origins);
      expect(ranked.map((c) => c.phrase).sort()).toEqual(candidates.map((c) => c.phrase).sort());
      const positive = ranked.map((c) => c.prior).filter((p) => p > 0);
      for (let k = 1; k < positive.length; k += 1) expect(positive[k]!, idea).toBeLessThan(positive[k - 1]!);
      // Where nothing is measured, step choose_primary takes the ranker's first.
      expect(choosePrimary(ranked, null).primary).toBe(ranked[0]!.phrase);
    }
    expect(softmax([0, 0]).map((p) => p.toFixed(2))).toEqual(['0.50', '0.50']);
  });

  it('the default order is the rules’; the learned one is asked by name, and an operator keyword still leads it', () => {
    const idea = 'Drone roof inspection service for insurers';
    expect(phraseCandidates(idea, [])).toEqual(phraseCandidates(idea, [], { ranker: 'rules' }));
    expect(phraseCandidates(idea, ['roof drone'], { ranker: 'learned' })[0]).toMatchObject({ phrase: 'roof drone', hint: true });
  });

  it('on two labelled sets it was fitted on (held-out, fresh-10): an acceptable phrase first for ≥ 60 of 80', () => {
    // Two sets, not all 404 (scripts/train-phrase-ranker.ts measures those): the test stays short on a loaded machine.
    const labelled = rows.filter((r) => r.set === 'held-out' || r.set === 'fresh-10');
    let first = 0;
    let among = 0;
    for (const r of labelled) {
      const candidates = phraseCandidates(r.idea, [], { ranker: 'learned' });
      if (r.expected.includes(candidates[0]!.phrase)) first += 1;
      if (measuredPhrases(candidates).some((p) => r.expected.includes(p))) among += 1;
    }
    console.log(JSON.stringify({ learned_in_sample: { of: labelled.length, first, among } }));
    expect(labelled).toHaveLength(80);
    // 2026-11-28: 60 and 72 (39 + 21 first, 40 + 32 among); the rules: 60 and 71 (40 + 20, 40 + 31). In sample
    // (fitted on these ideas): the cross-validated figure of the trainer is the one to read (docs/research.md).
    expect(first).toBeGreaterThanOrEqual(60);
    expect(among).toBeGreaterThanOrEqual(72);
  }, 240_000); // 80 parses took 90 s on a machine at load 33 (2026-11-28): past the unit config's 60 s
});
