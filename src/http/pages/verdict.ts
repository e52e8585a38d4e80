// The verdict the account pages show beside an insight (issue 49: "a verdict first").
//
// MERGE NOTE: a verdict rule of the report's own is being written beside the report (src/domain/reports or
// src/domain/research). Until it lands, this is the one place the pages ask for a verdict: the Insights list,
// an insight's page, the compare page and the Research list all call verdictFor, so rewiring it to that
// function is a change of this file alone.
import { DIMENSION_LABELS, DIMENSIONS, type Dimension } from '../../domain/scoring/dimensions.js';

export type VerdictLabel = 'promising' | 'mixed' | 'weak';

export interface Verdict {
  label: VerdictLabel;
  /** The strongest reason, in words. */
  reason: string;
  /** The biggest risk, in words. */
  risk: string;
}

export interface VerdictInput {
  overall_score: number;
  confidence: number;
  dimension_scores: Readonly<Partial<Record<Dimension, number | null>>>;
}

/** At least this overall score, on at least this confidence: promising. Below WEAK_BELOW: weak. Between: mixed. */
const PROMISING = { overall: 0.6, confidence: 0.5 } as const;
const WEAK_BELOW = 0.4;

const pct = (x: number) => `${Math.round(x * 100)}`;

export function verdictFor(insight: VerdictInput): Verdict {
  const scored = DIMENSIONS.flatMap((d) => {
    const score = insight.dimension_scores[d];
    return typeof score === 'number' ? [{ d, score }] : [];
  });
  const strongest = scored.reduce<(typeof scored)[number] | undefined>((best, s) => (!best || s.score > best.score ? s : best), undefined);
  const weakest = scored.reduce<(typeof scored)[number] | undefined>(
    (worst, s) => (!worst || s.score < worst.score ? s : worst),
    undefined,
  );
  const unscored = DIMENSIONS.length - scored.length;
  const label: VerdictLabel =
    insight.overall_score >= PROMISING.overall && insight.confidence >= PROMISING.confidence
      ? 'promising'
      : insight.overall_score < WEAK_BELOW
        ? 'weak'
        : 'mixed';
  const reason = strongest
    ? `${DIMENSION_LABELS[strongest.d]} is its strongest dimension (${pct(strongest.score)} of 100)`
    : 'No dimension could be scored';
  const risk =
    insight.confidence < PROMISING.confidence
      ? `the evidence is thin (confidence ${pct(insight.confidence)} of 100${unscored > 0 ? `, ${unscored} of ${DIMENSIONS.length} dimensions unscored` : ''})`
      : weakest && strongest && weakest.score < strongest.score
        ? `${DIMENSION_LABELS[weakest.d].toLowerCase()} is its weakest dimension (${pct(weakest.score)} of 100)`
        : weakest
          ? `no dimension stands out: all score ${pct(weakest.score)} of 100`
          : 'nothing could be scored';
  return { label, reason, risk };
}
