// The 8 dimensions every insight is scored on, and how they combine.

export const DIMENSIONS = [
  'demand',
  'momentum',
  'durability',
  'reach',
  'breadth',
  'pain',
  'intent',
  'whitespace',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/**
 * Weights of the overall score. They sum to 1. Demand, pain and intent weigh
 * most: a startup needs people searching, hurting and ready to pay. The README
 * documents these numbers; change them there too.
 */
export const DIMENSION_WEIGHTS: Record<Dimension, number> = {
  demand: 0.2,
  momentum: 0.15,
  durability: 0.1,
  reach: 0.05,
  breadth: 0.1,
  pain: 0.15,
  intent: 0.15,
  whitespace: 0.1,
};

export type Evidence = Record<string, number | string | boolean | null>;

/** A dimension's verdict. `score` is null when the evidence cannot support one; `explanation` then says why. */
export interface DimensionScore {
  score: number | null;
  evidence: Evidence;
  explanation: string;
  /**
   * How much of the dimension's weight its evidence carries in the overall
   * confidence, in [0,1]; absent means all of it. Below 1 when the score rests
   * on thin evidence (a handful of autocomplete topics, a comparison Google's
   * rounding resolves coarsely).
   */
  strength?: number;
}

/** A source a dimension could not read this time, and why (not recorded, served empty, not asked …). */
export interface Unavailable {
  unavailable: string;
}
export type Reading<T extends object> = T | Unavailable;

export function isAvailable<T extends object>(reading: Reading<T> | null | undefined): reading is T {
  return reading !== null && reading !== undefined && !('unavailable' in reading);
}

export type DimensionScores = Record<Dimension, DimensionScore>;

export function unsupported(reason: string, evidence: Evidence = {}): DimensionScore {
  return { score: null, evidence, explanation: reason };
}

export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Round for storage and display: scores are not meaningful beyond 3 decimals. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
