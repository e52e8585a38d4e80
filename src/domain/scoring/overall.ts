import { DIMENSIONS, DIMENSION_WEIGHTS, round3, TOTAL_WEIGHT, type DimensionScores } from './dimensions.js';

export interface OverallScore {
  /** Weighted mean of the dimensions that have a score, in [0,1]. */
  score: number;
  /** In [0,1]: the share of the total weight scored dimensions carry (each by the strength of its evidence) times the data quality. */
  confidence: number;
  scoredDimensions: number;
}

/**
 * overall = Σ wᵢ·sᵢ / Σ wᵢ over the dimensions with a score;
 * confidence = (Σ wᵢ·eᵢ over scored dimensions / Σ wᵢ over all) × dataQuality,
 * where eᵢ is the strength of dimension i's evidence (1 unless it says less).
 * A dimension without evidence, or with thin evidence, does not drag the score
 * down — it lowers the confidence instead, so thin evidence is visible rather
 * than disguised.
 */
export function combineScores(dimensions: DimensionScores, dataQuality: number): OverallScore {
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
    confidence: round3((supported / TOTAL_WEIGHT) * Math.max(0, Math.min(1, dataQuality))),
    scoredDimensions: scored,
  };
}
