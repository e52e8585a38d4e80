// How the pain and intent evidence read from the modifier comparison agrees
// with the related-list evidence it replaces, on recorded answers where both
// can be read. No modifier comparison was ever recorded, so its reading is
// estimated from what the recordings do hold: each recorded top list gives
// its queries' search interest (0–100 against the list's first), and the
// share of that listed interest held by queries a family's comparison item
// would count (carriesFamily: the phrase's words and a modifier's, any order)
// estimates the family's share of the phrase's searches. It assumes the
// unlisted tail has the listed queries' mix. The related-list reading is the
// one the scores used before (share of listed queries with a signal's terms).
// `npm run bench:evidence` measures it; agreement-results.ts publishes it.
import { mean } from 'simple-statistics';
import { carriesFamily } from '../research/modifier-evidence.js';
import { INTENT_TERMS, PAIN_TERMS, termShare } from '../research/query-signals.js';
import { SIGNAL_SATURATION } from './dimension-scores.js';
import { spearman } from './momentum-backtest.js';
import { clamp01 } from '../numbers.js';

/** One recorded related-queries answer: the phrase, the day it was recorded, its lists. */
export interface RecordedRelated {
  keyword: string;
  /** YYYY-MM-DD */
  recordedAt: string;
  /** The window the lists cover, as recorded ("2021-01-01 2021-12-31"). */
  window: string;
  top: ReadonlyArray<{ label: string; value: number }>;
  rising: ReadonlyArray<{ label: string }>;
}

export const AGREEMENT_FAMILIES = ['pain', 'intent'] as const;
export type AgreementFamily = (typeof AGREEMENT_FAMILIES)[number];
const LIST_TERMS: Record<AgreementFamily, readonly string[]> = { pain: PAIN_TERMS, intent: INTENT_TERMS };

export interface EvidenceRow {
  keyword: string;
  recorded_at: string;
  family: AgreementFamily;
  /** Share of listed queries (top and rising) with the family's terms: the related-list reading. */
  list_share: number;
  list_score: number;
  /** Share of the top list's interest held by queries the family's comparison item counts: the modifier reading's estimate. */
  volume_share: number;
  modifier_score: number;
}

export interface OrderAgreement {
  /** Pairs of different keywords recorded the same day. */
  pairs: number;
  /** Both readings order the two the same way. */
  same: number;
  opposite: number;
  /** One reading or both cannot tell the two apart. */
  tied: number;
}

export interface FamilyAgreement {
  rows: number;
  both_zero: number;
  mean_abs_difference: number;
  /** Spearman over the rows; null when either reading is the same for every row (nothing to rank). */
  rank_correlation: number | null;
  keyword_order: OrderAgreement;
  /** The same keyword on different days: how much each reading moves by itself (the noise a difference must exceed). */
  retest_abs_difference: { list: number | null; modifier: number | null };
}

export interface AgreementFigures {
  recordings: number;
  keywords: string[];
  days: string[];
  windows: string[];
  families: Record<AgreementFamily, FamilyAgreement>;
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const meanOf = (xs: number[]) => (xs.length === 0 ? null : round(mean(xs)));

export function evidenceRows(recordings: readonly RecordedRelated[]): EvidenceRow[] {
  return recordings.flatMap((r) => {
    const queries = [...new Set([...r.top.map((i) => i.label), ...r.rising.map((i) => i.label)])];
    const listed = r.top.reduce((s, i) => s + i.value, 0);
    return AGREEMENT_FAMILIES.map((family) => {
      const list_share = termShare(queries, LIST_TERMS[family]).share;
      const carried = r.top.filter((i) => carriesFamily(i.label, r.keyword, family)).reduce((s, i) => s + i.value, 0);
      const volume_share = listed > 0 ? round(carried / listed, 4) : 0;
      return {
        keyword: r.keyword,
        recorded_at: r.recordedAt,
        family,
        list_share,
        list_score: round(clamp01(list_share / SIGNAL_SATURATION[family].lists)),
        volume_share,
        modifier_score: round(clamp01(volume_share / SIGNAL_SATURATION[family].modifiers)),
      };
    });
  });
}

const sign = (x: number) => (Math.abs(x) < 1e-9 ? 0 : Math.sign(x));

function familyAgreement(rows: EvidenceRow[]): FamilyAgreement {
  const list = rows.map((r) => r.list_score);
  const modifier = rows.map((r) => r.modifier_score);
  const constant = (xs: number[]) => xs.every((x) => x === xs[0]);
  const order: OrderAgreement = { pairs: 0, same: 0, opposite: 0, tied: 0 };
  const retest = { list: [] as number[], modifier: [] as number[] };
  rows.forEach((a, i) =>
    rows.slice(i + 1).forEach((b) => {
      if (a.keyword === b.keyword) {
        retest.list.push(Math.abs(a.list_score - b.list_score));
        retest.modifier.push(Math.abs(a.modifier_score - b.modifier_score));
        return;
      }
      if (a.recorded_at !== b.recorded_at) return;
      order.pairs += 1;
      const l = sign(a.list_score - b.list_score);
      const m = sign(a.modifier_score - b.modifier_score);
      if (l === 0 || m === 0) order.tied += 1;
      else if (l === m) order.same += 1;
      else order.opposite += 1;
    }),
  );
  return {
    rows: rows.length,
    both_zero: rows.filter((r) => r.list_score === 0 && r.modifier_score === 0).length,
    mean_abs_difference: meanOf(rows.map((r) => Math.abs(r.modifier_score - r.list_score))) ?? 0,
    rank_correlation: rows.length < 3 || constant(list) || constant(modifier) ? null : round(spearman(list, modifier)),
    keyword_order: order,
    retest_abs_difference: { list: meanOf(retest.list), modifier: meanOf(retest.modifier) },
  };
}

export function measureAgreement(recordings: readonly RecordedRelated[]): AgreementFigures {
  const rows = evidenceRows(recordings);
  return {
    recordings: recordings.length,
    keywords: [...new Set(recordings.map((r) => r.keyword))].sort(),
    days: [...new Set(recordings.map((r) => r.recordedAt))].sort(),
    windows: [...new Set(recordings.map((r) => r.window))].sort(),
    families: Object.fromEntries(AGREEMENT_FAMILIES.map((f) => [f, familyAgreement(rows.filter((r) => r.family === f))])) as Record<
      AgreementFamily,
      FamilyAgreement
    >,
  };
}
