// The verdict: the one line a founder reads first (promising, mixed, weak, or
// unproven when the evidence is too thin to say), with the strongest reason
// and the biggest risk in words. It is made from the scores alone, so a list
// entry (which carries each dimension's score, not its evidence) and the
// insight itself get the same verdict. The rule is published in
// docs/research.md ("The verdict"); change it there too. Pure.
import { DIMENSIONS, EXPERIMENTAL_DIMENSIONS, type Dimension } from '../scoring/dimensions.js';
import { MIN_COMPLETE_DIMENSIONS, scoredCount } from '../scoring/overall.js';

export const VERDICT_LABELS = ['promising', 'mixed', 'weak', 'unproven'] as const;
export type VerdictLabel = (typeof VERDICT_LABELS)[number];

export interface Verdict {
  label: VerdictLabel;
  /** The verdict as one sentence: "Promising: many people search for it (demand 0.83); the biggest risk: …". */
  text: string;
  /** The strongest reason, in words, with the score it rests on. */
  reason: string;
  /** The biggest risk, in words, with the score (or the missing evidence) it rests on. */
  risk: string;
  /** JSON Pointers (RFC 6901) into the insight (GET /api/insights/{id}): what the verdict rests on. */
  evidence: string[];
}

/** Either an insight's dimensions (GET /api/insights/{id}) or a list entry's dimension_scores: only the scores are read. */
export type VerdictInput = {
  overall_score: number;
  confidence: number;
  /** The market: a run for one country ("US") reads its regions, not countries (founder review, issue 47). */
  geo?: string | null;
} & (
  | { dimension_scores: Readonly<Partial<Record<Dimension, number | null>>> }
  | { dimensions: Readonly<Partial<Record<Dimension, { score: number | null } | null | undefined>>> }
);

/** The thresholds of the rule (docs/research.md, "The verdict"). */
export const VERDICT_RULE = {
  /** Below this confidence, or with fewer than MIN_COMPLETE_DIMENSIONS scored, the verdict is unproven. */
  minConfidence: 0.4,
  /** Promising: the overall score at least this … */
  promisingAt: 0.6,
  /** … and none of these at or below riskAt: what a founder asks first (is it searched, does it hurt, will they pay). */
  core: ['demand', 'pain', 'intent'] as const satisfies readonly Dimension[],
  /** A dimension at or below this is a risk (the decision summary's threshold too). */
  riskAt: 0.35,
  /** Weak: the overall score below this. Between the two: mixed. */
  weakBelow: 0.45,
} as const;

/** What a high and a low score of each dimension mean, as a founder reads it. */
const WORDS: Record<Dimension, { high: string; low: string }> = {
  demand: { high: 'many people search for it', low: 'few people search for it' },
  momentum: { high: 'interest is likely to rise next month', low: 'interest is likely to fall next month' },
  durability: { high: 'interest has held for years, not a fad', low: 'interest has not held over the years' },
  reach: { high: 'it is searched in many countries', low: 'it is searched in few countries' },
  breadth: { high: 'many different searches surround it', low: 'few different searches surround it' },
  pain: { high: 'searches for it often carry problem words', low: 'searches for it rarely carry problem words' },
  intent: { high: 'searches for it often carry buying words', low: 'searches for it rarely carry buying words' },
  // Low whitespace is the stronger of comparison and brand pressure: which one, only the explanation
  // says ("not called crowded" when no brand was read), so the low words claim neither alone (founder review).
  whitespace: {
    high: 'searches for it show little competition (few comparisons or brands)',
    low: 'many searches for it compare options or name brands',
  },
};

const NAMES: Record<Dimension, string> = {
  demand: 'demand',
  momentum: 'momentum',
  durability: 'durability',
  reach: 'reach',
  breadth: 'breadth',
  pain: 'pain',
  intent: 'buyer intent',
  whitespace: 'whitespace',
};

/**
 * A score as it is printed ("0.45", "45 of 100"): the rule reads this, not the raw score, so the label and
 * the number beside it agree at a boundary (founder review, issue 47: 0.454 read mixed and 0.446 weak, both
 * printed "45 of 100").
 */
export const printedScore = (x: number) => Math.round(x * 100) / 100;
const two = (x: number) => printedScore(x).toFixed(2);
const scorePointer = (d: Dimension) => `/dimensions/${d}/score`;

function scoresOf(input: VerdictInput): Partial<Record<Dimension, number | null>> {
  const raw: Partial<Record<Dimension, number | null>> =
    'dimension_scores' in input
      ? input.dimension_scores
      : Object.fromEntries(DIMENSIONS.map((d) => [d, input.dimensions[d]?.score ?? null]));
  return Object.fromEntries(DIMENSIONS.map((d) => [d, typeof raw[d] === 'number' ? printedScore(raw[d]) : (raw[d] ?? null)]));
}

/** The verdict of an insight or a list entry, by the published rule. */
export function verdictOf(insight: VerdictInput): Verdict {
  const scores = scoresOf(insight);
  const scored = DIMENSIONS.filter((d) => typeof scores[d] === 'number');
  const score = (d: Dimension) => scores[d] as number;
  // Strongest first; a validated reading before an experimental one of the same score.
  const ranked = [...scored].sort(
    (a, b) => score(b) - score(a) || Number(!!EXPERIMENTAL_DIMENSIONS[a]) - Number(!!EXPERIMENTAL_DIMENSIONS[b]),
  );
  const strongest = ranked.find((d) => !EXPERIMENTAL_DIMENSIONS[d]) ?? ranked[0];
  const weakest = ranked.at(-1);
  const count = scoredCount(scores);
  const overallScore = printedScore(insight.overall_score);
  const thin = count < MIN_COMPLETE_DIMENSIONS || printedScore(insight.confidence) < VERDICT_RULE.minConfidence;
  const weakCore = VERDICT_RULE.core.filter((d) => typeof scores[d] === 'number' && score(d) <= VERDICT_RULE.riskAt);

  const label: VerdictLabel = thin
    ? 'unproven'
    : overallScore >= VERDICT_RULE.promisingAt && weakCore.length === 0
      ? 'promising'
      : overallScore < VERDICT_RULE.weakBelow
        ? 'weak'
        : 'mixed';

  const evidence = ['/overall_score', '/confidence'];
  let reason: string;
  if (strongest !== undefined) {
    reason =
      score(strongest) >= 0.5
        ? `${WORDS[strongest].high} (${NAMES[strongest]} ${two(score(strongest))})`
        : `no dimension is strong; the highest is ${NAMES[strongest]} ${two(score(strongest))}`;
    evidence.push(scorePointer(strongest));
  } else {
    reason = 'no dimension could be scored';
  }

  let risk: string;
  if (thin) {
    const missing = DIMENSIONS.filter((d) => !scored.includes(d));
    risk =
      count < MIN_COMPLETE_DIMENSIONS
        ? `only ${count} of 8 dimensions could be scored (confidence ${two(insight.confidence)}), so the score says little`
        : `the evidence is thin (confidence ${two(insight.confidence)}), so the score says little`;
    evidence.push(...missing.map((d) => `/dimensions/${d}/explanation`));
  } else {
    // A weak core dimension is the risk that kept it from promising; otherwise the weakest of all.
    const worst = weakCore.sort((a, b) => score(a) - score(b))[0] ?? weakest!;
    risk =
      score(worst) <= VERDICT_RULE.riskAt
        ? `${WORDS[worst].low} (${NAMES[worst]} ${two(score(worst))})`
        : `no dimension is weak; the lowest is ${NAMES[worst]} ${two(score(worst))}`;
    evidence.push(scorePointer(worst));
  }

  // A market's map is of its regions: "searched in many countries" is not what a US run read.
  if (insight.geo) {
    reason = reason.replace(/ countries \(reach/, ' regions of its market (reach');
    risk = risk.replace(/ countries \(reach/, ' regions of its market (reach');
  }
  const title = `${label.charAt(0).toUpperCase()}${label.slice(1)}`;
  const overall = `overall ${two(insight.overall_score)}, confidence ${two(insight.confidence)}`;
  return {
    label,
    text: `${title} (${overall}): ${reason}; the biggest risk: ${risk}.`,
    reason,
    risk,
    evidence: [...new Set(evidence)],
  };
}
