// The 8 dimensions every insight is scored on, and how they combine.

export const DIMENSIONS = ['demand', 'momentum', 'durability', 'reach', 'breadth', 'pain', 'intent', 'whitespace'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Each dimension's name as a sentence begins it. */
export const DIMENSION_LABELS: Record<Dimension, string> = {
  demand: 'Demand',
  momentum: 'Momentum',
  durability: 'Durability',
  reach: 'Reach',
  breadth: 'Breadth',
  pain: 'Pain',
  intent: 'Buyer intent',
  whitespace: 'Whitespace',
};

/**
 * The weights the overall score is designed with. They sum to 1. Demand, pain
 * and intent weigh most: a startup needs people searching, hurting and ready
 * to pay. docs/research.md documents these numbers; change them there too.
 */
export const DESIGNED_WEIGHTS: Record<Dimension, number> = {
  demand: 0.2,
  momentum: 0.15,
  durability: 0.1,
  reach: 0.05,
  breadth: 0.1,
  pain: 0.15,
  intent: 0.15,
  whitespace: 0.1,
};

/**
 * How a dimension's reading is validated against an independent one (pain and
 * intent: the modifier comparison against the related queries Google lists,
 * `insights evidence collect` then `npm run bench:evidence`). Until a set of at
 * least `required` phrases has been measured, the dimension is experimental:
 * marked so in the API and /api/methodology, and weighted at half its design.
 */
export const EVIDENCE_VALIDATION = {
  required: 30,
  /** Phrases measured so far (none: Google is not reachable from where this was built; see docs/research.md). */
  measured: 0,
  experimentalWeightFactor: 0.5,
} as const;

/** The dimensions whose evidence is not validated yet, and why. */
export const EXPERIMENTAL_DIMENSIONS: Partial<Record<Dimension, string>> =
  EVIDENCE_VALIDATION.measured >= EVIDENCE_VALIDATION.required
    ? {}
    : {
        pain: `experimental: the modifier comparison's reading has not been validated against listed related queries on ${EVIDENCE_VALIDATION.required} phrases yet (measured: ${EVIDENCE_VALIDATION.measured}); weighted at half`,
        intent: `experimental: the modifier comparison's reading has not been validated against listed related queries on ${EVIDENCE_VALIDATION.required} phrases yet (measured: ${EVIDENCE_VALIDATION.measured}); weighted at half`,
      };

/** The weights the overall score uses: the designed ones, experimental dimensions at a fraction. */
export const DIMENSION_WEIGHTS: Record<Dimension, number> = Object.fromEntries(
  DIMENSIONS.map((d) => [
    d,
    Math.round(DESIGNED_WEIGHTS[d] * (EXPERIMENTAL_DIMENSIONS[d] ? EVIDENCE_VALIDATION.experimentalWeightFactor : 1) * 1e6) / 1e6,
  ]),
) as Record<Dimension, number>;
/** Their sum: confidence is the share of it the scored dimensions' evidence carries. */
export const TOTAL_WEIGHT = DIMENSIONS.reduce((s, d) => s + DIMENSION_WEIGHTS[d], 0);

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
  /** The dimension's evidence is not validated yet (EXPERIMENTAL_DIMENSIONS): it weighs less, and says so. */
  experimental?: boolean;
}

/** A source a dimension could not read this time, and why (not recorded, served empty, not asked …). */
export interface Unavailable {
  unavailable: string;
  /** The source answered, but with numbers that contradict each other (an OR-group above its phrase): unread, and the dimension's confidence drops. */
  contradictory?: boolean;
}
export type Reading<T extends object> = T | Unavailable;

export function isAvailable<T extends object>(reading: Reading<T> | null | undefined): reading is T {
  return reading !== null && reading !== undefined && !('unavailable' in reading);
}

export type DimensionScores = Record<Dimension, DimensionScore>;

export function unsupported(reason: string, evidence: Evidence = {}): DimensionScore {
  return { score: null, evidence, explanation: reason };
}
