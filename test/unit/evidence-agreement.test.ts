// The agreement GET /api/methodology publishes (agreement-results.ts) is what
// bench:evidence measures on the recordings, figure for figure; the measure's
// arithmetic holds on a small made-up answer; and the published formulas name
// the constants the scoring code uses.
import { describe, expect, it } from 'vitest';
import { readRecordedRelated } from '../../bench/lib/recorded-related.js';
import { MAX_ITEM_CHARS, MODIFIER_FAMILIES, RESOLVED_PHRASE_MEAN } from '../../src/domain/research/modifier-evidence.js';
import { EVIDENCE_AGREEMENT } from '../../src/domain/scoring/agreement-results.js';
import { AUTOCOMPLETE_STRENGTH, BRAND_SATURATION, SIGNAL_SATURATION } from '../../src/domain/scoring/dimension-scores.js';
import { evidenceRows, measureAgreement } from '../../src/domain/scoring/evidence-agreement.js';
import { methodology } from '../../src/domain/scoring/methodology.js';
import { itWithSharedData, RECORDED_DIR } from '../support/shared-data.js';

describe('the evidence agreement on recorded answers', () => {
  itWithSharedData('measures exactly what agreement-results.ts publishes', () => {
    const { recordings, exchanges, differing } = readRecordedRelated(RECORDED_DIR);
    expect({ exchanges, differing }).toEqual({ exchanges: 14, differing: 0 });
    const { measured_on: _m, data: _d, method: _me, conclusion: _c, live_recording_needs: _l, ...published } = EVIDENCE_AGREEMENT;
    expect(measureAgreement(recordings)).toEqual(published);
  });

  it('reads both evidences from one answer as documented', () => {
    const rows = evidenceRows([
      {
        keyword: 'pizza',
        recordedAt: '2022-11-12',
        window: '2021-01-01 2021-12-31',
        top: [
          { label: 'pizza hut', value: 100 },
          { label: 'pizza near me', value: 60 },
          { label: 'best pizza', value: 20 },
          { label: 'delivery near me', value: 20 }, // no "pizza": the comparison item would not count it
        ],
        rising: [{ label: 'how to make pizza' }],
      },
    ]);
    const intent = rows.find((r) => r.family === 'intent')!;
    // List reading: 3 of 5 listed queries carry a buying term ("near me" twice, "best").
    expect(intent).toMatchObject({ list_share: 0.6, list_score: 1 });
    // Modifier reading: (60 + 20) of 200 listed interest.
    expect(intent).toMatchObject({ volume_share: 0.4, modifier_score: 1 });
    const pain = rows.find((r) => r.family === 'pain')!;
    // "how to make pizza" is listed only as rising (no interest figure): it counts in the list reading alone.
    expect(pain).toMatchObject({ list_share: 0.2, list_score: 0.8, volume_share: 0, modifier_score: 0 });
  });

  it('tells rank agreement from ties, and the same phrase on other days from other phrases', () => {
    const answer = (keyword: string, day: string, top: Array<[string, number]>) => ({
      keyword,
      recordedAt: day,
      window: 'w',
      top: top.map(([label, value]) => ({ label, value })),
      rising: [],
    });
    const figures = measureAgreement([
      answer('a', 'd1', [
        ['a price', 50],
        ['a x', 50],
      ]),
      answer('b', 'd1', [['b y', 100]]),
      answer('a', 'd2', [
        ['a price', 40],
        ['a x', 60],
      ]),
      answer('b', 'd2', [
        ['b best', 10],
        ['b y', 30],
        ['b z', 30],
        ['b w', 30],
      ]),
    ]);
    // d1: a 1 / 1, b 0 / 0 (list / modifier score); d2: a 1 / 1, b 0.758 / 0.4. Both put a first both days.
    expect(figures.families.intent.keyword_order).toEqual({ pairs: 2, same: 2, opposite: 0, tied: 0 });
    expect(figures.families.intent.rank_correlation).not.toBeNull();
    expect(figures.families.pain).toMatchObject({ both_zero: 4, rank_correlation: null, keyword_order: { pairs: 2, tied: 2 } });
    expect(figures.families.intent.retest_abs_difference).toEqual({ list: 0.379, modifier: 0.2 });
  });
});

describe('GET /api/methodology (the document it serves)', () => {
  const m = methodology();

  it('publishes the agreement, its sample and how to reproduce it, and says the data cannot support a claim', () => {
    expect(m.evidence_agreement).toMatchObject({ recordings: 6, keywords: ['bagel', 'pizza'], reproduce: 'npm run bench:evidence' });
    expect(m.evidence_agreement.conclusion).toMatch(/cannot support a claim/);
    expect(m.evidence_agreement.live_recording_needs).toMatch(/30 or more phrases/);
  });

  it("states each reading's saturation, strength and words as the code has them", () => {
    for (const family of ['pain', 'intent'] as const) {
      const { formula, evidence } = m.dimensions[family];
      expect(formula).toContain(`s / ${SIGNAL_SATURATION[family].modifiers}`);
      expect(formula).toContain(`/ ${SIGNAL_SATURATION[family].lists}`);
      expect(formula).toContain(`the phrase's mean / ${RESOLVED_PHRASE_MEAN}`);
      expect(evidence).toContain(MODIFIER_FAMILIES[family].join(', '));
      expect(evidence).toContain(`${MAX_ITEM_CHARS} characters`);
    }
    expect(m.dimensions.whitespace.formula).toContain(`/ ${SIGNAL_SATURATION.competition.modifiers}`);
    expect(m.dimensions.whitespace.formula).toContain(`/ ${BRAND_SATURATION}`);
    expect(m.dimensions.breadth.formula).toContain(`strength ${AUTOCOMPLETE_STRENGTH}`);
    expect(m.overall.formula).toMatch(/Σ wᵢ·eᵢ/);
  });
});
