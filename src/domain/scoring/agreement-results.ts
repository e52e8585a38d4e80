// The published agreement of the pain and intent evidence read from the
// modifier comparison with the related-list evidence, on recorded answers:
// what `npm run bench:evidence` measured, copied here so GET /api/methodology
// can serve it. test/unit/evidence-agreement.test.ts recomputes it from the
// recordings and fails if a figure no longer matches: re-run the bench and
// update them together with the formulas.
import type { AgreementFigures } from './evidence-agreement.js';

export const EVIDENCE_AGREEMENT: AgreementFigures & {
  measured_on: string;
  data: string;
  method: string;
  conclusion: string;
  live_recording_needs: string;
} = {
  measured_on: '2026-11-24',
  data: 'The related-queries answers in the pytrends recordings (../shared/data/google-trends-recorded/pytrends, GeneralMills/pytrends test cassettes, Apache-2.0): 14 exchanges, 6 distinct (phrase, day).',
  method:
    "For each recorded answer and each of pain and intent: the related-list reading is the share of listed queries (top and rising) with the signal's terms, scored as before; the modifier reading, never recorded, is estimated as the share of the top list's search interest held by queries the family's comparison item would count (the phrase's words and a modifier's, any order), scored with the modifier comparison's saturation. Agreement: mean absolute score difference, Spearman over the rows, whether the two order two phrases recorded the same day alike, and how much each reading moves for one phrase between days.",
  recordings: 6,
  keywords: ['bagel', 'pizza'],
  days: ['2022-10-30', '2022-11-12', '2023-03-26'],
  windows: ['2021-01-01 2021-12-31'],
  families: {
    pain: {
      rows: 6,
      both_zero: 6,
      mean_abs_difference: 0,
      rank_correlation: null,
      keyword_order: { pairs: 3, same: 0, opposite: 0, tied: 3 },
      retest_abs_difference: { list: 0, modifier: 0 },
    },
    intent: {
      rows: 6,
      both_zero: 0,
      mean_abs_difference: 0.27,
      rank_correlation: 0.938,
      keyword_order: { pairs: 3, same: 3, opposite: 0, tied: 0 },
      retest_abs_difference: { list: 0.039, modifier: 0.002 },
    },
  },
  conclusion:
    "The data cannot support a claim of agreement. Two phrases were recorded, each on three days for the same 2021 window, and a phrase's readings barely move between days: the sample is one pair of phrases per signal. Pain: neither reading finds a problem word for pizza or bagel, so both are 0 everywhere and there is nothing to rank. Intent: both readings put pizza above bagel (the one pair, on all three days; chance alone gives one in two), and the modifier reading scores higher (mean difference 0.27; pizza saturates at 1.0 where the list reading gives 0.48-0.59). The modifier reading itself is an estimate from the top lists, not a recorded comparison.",
  live_recording_needs:
    'On one day, for 30 or more phrases of different kinds (products, services, problems, brands): the related queries, top and rising (served to a browser session; automated clients get them empty since 2024-08-20), and the modifier comparison the research asks (the phrase, its pain, buying and comparison items, 12 months, the same geo), with the same time window. Then agreement can be measured per phrase, and the modifier saturation fitted on half the phrases and checked on the other half.',
};
