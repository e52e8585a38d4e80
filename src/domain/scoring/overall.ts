import type { ProvenanceKind } from '../provenance-kind.js';
import { DIMENSIONS, DIMENSION_WEIGHTS, TOTAL_WEIGHT, type DimensionScores } from './dimensions.js';
import { clamp01, round3 } from '../numbers.js';

/** An insight with fewer dimensions scored than this is partial: listed after the complete ones by default. */
export const MIN_COMPLETE_DIMENSIONS = 5;

/** How many of the 8 dimensions have a score. */
export const scoredCount = (scores: Readonly<Record<string, number | null | undefined>>) =>
  Object.values(scores).filter((s) => s !== null && s !== undefined).length;

export const isPartial = (scores: Readonly<Record<string, number | null | undefined>>) => scoredCount(scores) < MIN_COMPLETE_DIMENSIONS;

/**
 * A conservative score: overall × confidence. With full evidence and a clean
 * series it is the weighted mean of all 8 dimensions with every unscored one
 * counted as 0 (the least the unknown dimensions could add); thin evidence and
 * gaps in the series discount it further. It is not a statistical bound on the
 * scored dimensions' own error. A fully evidenced 0.62 ranks above a 0.83 read
 * from 1 of 8 dimensions (0.83 × 0.11 = 0.09).
 */
export const rankScore = (overall: number, confidence: number) => Math.round(overall * confidence * 1000) / 1000;

/** The default order's key, as migration 0018 generates it: 1 + overall × confidence for complete insights, overall × confidence for partial ones. */
export const rankKey = (overall: number, confidence: number, scores: Readonly<Record<string, number | null | undefined>>) =>
  (isPartial(scores) ? 0 : 1) + overall * confidence;

/**
 * How far what the data is lets the confidence go: the factor it is multiplied
 * by. Live and recorded answers are real searches (a recorded one says its
 * dates beside it). A simulated world's answers are made up: complete and
 * clean, they read 1.00 on every simulated insight (founder review, issue 47),
 * as if a demo could be certain about an idea. They show how the method reads
 * a plausible world, not how the idea will do, so a simulated insight's
 * confidence is at most 0.60: above the verdict's floor (0.40) when its
 * evidence is full, so the demo still shows every verdict, and below it when
 * its evidence is thin as well (docs/research.md, "Confidence").
 */
export const SOURCE_CERTAINTY: Readonly<Record<ProvenanceKind, number>> = { live: 1, recorded: 1, simulated: 0.6 };

export interface OverallScore {
  /** Weighted mean of the dimensions that have a score, in [0,1]. */
  score: number;
  /** In [0,1]: the share of the total weight scored dimensions carry (each by the strength of its evidence) times the data quality and the source's certainty. */
  confidence: number;
  scoredDimensions: number;
}

/**
 * overall = Σ wᵢ·sᵢ / Σ wᵢ over the dimensions with a score;
 * confidence = (Σ wᵢ·eᵢ over scored dimensions / Σ wᵢ over all) × dataQuality × certainty,
 * where eᵢ is the strength of dimension i's evidence (1 unless it says less)
 * and certainty what the data is (SOURCE_CERTAINTY: 0.6 for a simulation).
 * A dimension without evidence, or with thin evidence, does not drag the score
 * down — it lowers the confidence instead, so thin evidence is visible rather
 * than disguised.
 */
export function combineScores(dimensions: DimensionScores, dataQuality: number, certainty = 1): OverallScore {
  let weighted = 0;
  let weightSum = 0;
  let supported = 0;
  let scored = 0;
  for (const name of DIMENSIONS) {
    const { score, strength } = dimensions[name];
    if (score === null) continue;
    weighted += DIMENSION_WEIGHTS[name] * score;
    weightSum += DIMENSION_WEIGHTS[name];
    supported += DIMENSION_WEIGHTS[name] * Math.max(0, Math.min(1, strength ?? 1));
    scored += 1;
  }
  if (weightSum === 0) return { score: 0, confidence: 0, scoredDimensions: 0 };
  return {
    score: round3(weighted / weightSum),
    confidence: round3((supported / TOTAL_WEIGHT) * clamp01(dataQuality) * clamp01(certainty)),
    scoredDimensions: scored,
  };
}
