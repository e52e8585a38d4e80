// Validation of pain and intent on evidence collected live (`insights evidence
// collect`): for each phrase, the related queries Google lists (the embed flow)
// and the modifier comparison the research asks, on one day. The related-list
// reading is the reference; the modifier reading's saturation point is fitted
// on one half of the phrases (chosen by a hash of the phrase, so the halves do
// not depend on the file's order) and its agreement measured on the other,
// beside the saturation point the product ships (the baseline, in the same
// run). Until `EVIDENCE_VALIDATION.required` phrases have been measured, pain
// and intent stay experimental (dimensions.ts).
import { familyShares, modifierRequest, type ModifierRequest } from '../research/modifier-evidence.js';
import { INTENT_TERMS, PAIN_TERMS, termShare } from '../research/query-signals.js';
import type { TimelinePoint } from '../trends/answers.js';
import { readableFamily, SIGNAL_SATURATION } from './dimension-scores.js';
import { EVIDENCE_VALIDATION, isAvailable } from './dimensions.js';
import { spearman } from './momentum-backtest.js';
import { clamp01 } from '../numbers.js';

export const FIT_FAMILIES = ['pain', 'intent'] as const;
export type FitFamily = (typeof FIT_FAMILIES)[number];
const LIST_TERMS: Record<FitFamily, readonly string[]> = { pain: PAIN_TERMS, intent: INTENT_TERMS };

/** One line of the JSONL `insights evidence collect` writes. */
export interface CollectedEvidence {
  phrase: string;
  geo: string;
  collected_at: string;
  provider: string;
  related_queries: {
    served: string;
    reason?: string;
    top: Array<{ label: string; value: number }>;
    rising: Array<{ label: string; value: number }>;
    provenance?: unknown;
  };
  modifier_comparison: { outcome: string; reason?: string; keywords: string[]; points: TimelinePoint[]; provenance?: unknown };
}

/** A phrase's two readings of one family, when both can be read. */
export interface FitRow {
  phrase: string;
  family: FitFamily;
  half: 'fit' | 'check';
  /** Share of listed related queries with the family's words, and its score at the shipped list saturation point. */
  list_share: number;
  list_score: number;
  /** The family's share of the phrase's searches (modifier comparison). */
  modifier_share: number;
}

export interface FamilyFit {
  family: FitFamily;
  fit_rows: number;
  check_rows: number;
  /** The modifier saturation point fitted on the fit half (minimising the mean |modifier score − list score|). */
  fitted_saturation: number | null;
  /** The fit landed on an end of the grid (1 % or 100 %): the evidence does not pin a point down. */
  fitted_at_edge: boolean;
  shipped_saturation: number;
  /** On the check half: mean |modifier score − list score| with the fitted point, and with the shipped one (the baseline). */
  check_mae_fitted: number | null;
  check_mae_shipped: number | null;
  /** On the check half: rank correlation of the two shares (null when one is constant or too few rows). */
  check_spearman: number | null;
}

export interface EvidenceFit {
  phrases: number;
  /** Phrases with both readings of at least one family. */
  usable: number;
  /** Of them, collected from live Google: only these validate (a simulated world's agreement says nothing of Google's). */
  live: number;
  /** Why each unusable phrase could not be read. */
  skipped: Array<{ phrase: string; reason: string }>;
  families: Record<FitFamily, FamilyFit>;
  required: number;
  /** Enough usable phrases collected from live Google to lift the experimental mark (EVIDENCE_VALIDATION.required). */
  enough: boolean;
}

/** Whether a parsed line is a record `insights evidence collect` writes (a line of another file is not). */
export function isCollectedEvidence(x: unknown): x is CollectedEvidence {
  const r = x as Partial<CollectedEvidence> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.phrase === 'string' &&
    typeof r.provider === 'string' &&
    typeof r.related_queries === 'object' &&
    r.related_queries !== null &&
    Array.isArray(r.related_queries.top) &&
    Array.isArray(r.related_queries.rising) &&
    typeof r.modifier_comparison === 'object' &&
    r.modifier_comparison !== null &&
    Array.isArray(r.modifier_comparison.keywords) &&
    Array.isArray(r.modifier_comparison.points)
  );
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
/** FNV-1a of the phrase: the half it falls in, whatever order the file lists it in. */
const halfOf = (phrase: string): 'fit' | 'check' => {
  let h = 0x811c9dc5;
  for (const c of phrase.toLowerCase()) h = Math.imul(h ^ c.codePointAt(0)!, 0x01000193) >>> 0;
  return h % 2 === 0 ? 'fit' : 'check';
};
const GRID = { from: 0.01, to: 1, steps: 200 } as const;
const meanAbs = (rows: FitRow[], saturation: number) =>
  rows.reduce((s, r) => s + Math.abs(clamp01(r.modifier_share / saturation) - r.list_score), 0) / rows.length;

/** Every family row a collected record can give, or why none. */
export function fitRows(record: CollectedEvidence): { rows: FitRow[]; reason?: string } {
  const lists = record.related_queries;
  if (lists.served !== 'listed') return { rows: [], reason: `related queries ${lists.served}${lists.reason ? `: ${lists.reason}` : ''}` };
  const queries = [...new Set([...lists.top, ...lists.rising].map((i) => i.label))];
  if (queries.length === 0) return { rows: [], reason: 'no related query listed' };
  const comparison = record.modifier_comparison;
  if (comparison.outcome !== 'served')
    return { rows: [], reason: `modifier comparison ${comparison.outcome}${comparison.reason ? `: ${comparison.reason}` : ''}` };
  const request: ModifierRequest | null = modifierRequest(record.phrase);
  if (!request || request.keywords.join('|') !== comparison.keywords.join('|'))
    return { rows: [], reason: 'the comparison recorded is not the one this version of the research asks' };
  const shares = familyShares(request, { points: comparison.points });
  if (!shares.ok) return { rows: [], reason: shares.reason };
  const rows: FitRow[] = [];
  const why: string[] = [];
  for (const family of FIT_FAMILIES) {
    const share = shares.shares[family];
    const readable = share ? readableFamily(family, share) : { unavailable: 'no room for the family in the comparison' };
    if (!isAvailable(readable)) {
      why.push(`${family}: ${readable.unavailable}`);
      continue;
    }
    const list = termShare(queries, LIST_TERMS[family]);
    rows.push({
      phrase: record.phrase,
      family,
      half: halfOf(record.phrase),
      list_share: list.share,
      list_score: round(clamp01(list.share / SIGNAL_SATURATION[family].lists)),
      modifier_share: readable.share,
    });
  }
  return rows.length > 0 ? { rows } : { rows, reason: why.join('; ') };
}

/** The saturation point (from a log grid of 1 % to 100 %) with the smallest mean |modifier score − list score| on `rows`. */
export function fitSaturation(rows: FitRow[]): number | null {
  if (rows.length === 0) return null;
  let best = { s: 1, mae: Infinity };
  for (let i = 0; i <= GRID.steps; i += 1) {
    const s = GRID.from * (GRID.to / GRID.from) ** (i / GRID.steps);
    const mae = meanAbs(rows, s);
    if (mae < best.mae - 1e-12) best = { s, mae };
  }
  return round(best.s, 4);
}

export function fitEvidence(records: readonly CollectedEvidence[]): EvidenceFit {
  const all: FitRow[] = [];
  const skipped: EvidenceFit['skipped'] = [];
  const usable = new Set<string>();
  const live = new Set<string>();
  for (const record of records) {
    const { rows, reason } = fitRows(record);
    if (rows.length === 0) skipped.push({ phrase: record.phrase, reason: reason ?? 'nothing to read' });
    else {
      usable.add(record.phrase.toLowerCase());
      if (record.provider === 'google') live.add(record.phrase.toLowerCase());
    }
    all.push(...rows);
  }
  const families = Object.fromEntries(
    FIT_FAMILIES.map((family): [FitFamily, FamilyFit] => {
      const mine = all.filter((r) => r.family === family);
      const fit = mine.filter((r) => r.half === 'fit');
      const check = mine.filter((r) => r.half === 'check');
      const fitted = fitSaturation(fit);
      const shipped = SIGNAL_SATURATION[family].modifiers;
      const rho =
        check.length >= 3
          ? spearman(
              check.map((r) => r.modifier_share),
              check.map((r) => r.list_share),
            )
          : null;
      return [
        family,
        {
          family,
          fit_rows: fit.length,
          check_rows: check.length,
          fitted_saturation: fitted,
          fitted_at_edge: fitted !== null && (Math.abs(fitted - GRID.from) < 1e-9 || Math.abs(fitted - GRID.to) < 1e-9),
          shipped_saturation: shipped,
          check_mae_fitted: fitted === null || check.length === 0 ? null : round(meanAbs(check, fitted)),
          check_mae_shipped: check.length === 0 ? null : round(meanAbs(check, shipped)),
          check_spearman: rho === null || !Number.isFinite(rho) ? null : round(rho),
        },
      ];
    }),
  ) as Record<FitFamily, FamilyFit>;
  return {
    phrases: records.length,
    usable: usable.size,
    live: live.size,
    skipped,
    families,
    required: EVIDENCE_VALIDATION.required,
    enough: live.size >= EVIDENCE_VALIDATION.required,
  };
}
