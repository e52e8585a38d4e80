// The insight's conclusion: its strongest signals, its main risks, what to
// validate first and why now. Every sentence is made from the dimensions and
// names the evidence it rests on as JSON Pointers into the insight as the API
// serves it (GET /api/insights/{id}); a sentence whose evidence is missing is
// not said. Computed when the insight is read, so it always agrees with the
// scores it summarises (a refresh changes momentum). Pure.
import { DIMENSION_LABELS, DIMENSIONS, type Dimension, type DimensionScore } from '../scoring/dimensions.js';
import { isPartial, MIN_COMPLETE_DIMENSIONS, scoredCount } from '../scoring/overall.js';
import { directionStatement } from '../scoring/direction.js';
import { servedHorizon } from '../forecast/outlook.js';

export interface DecisionSentence {
  text: string;
  /** JSON Pointers (RFC 6901) into the insight: the fields the sentence rests on. */
  evidence: string[];
}

export interface DecisionSummary {
  signals: DecisionSentence[];
  risks: DecisionSentence[];
  validate_first: DecisionSentence[];
  why_now: DecisionSentence[];
}

/** What of the insight the summary reads (its API shape). */
export interface DecisionInput {
  primary_keyword: string;
  title?: string;
  confidence: number;
  dimensions: Record<Dimension, DimensionScore>;
  trend_class: string | null;
  outlook?: unknown;
  /** The last day of the data the insight rests on: the outlook's months count from it, not from today (a recording may be years old). */
  data_as_of?: string | null;
}

/** A signal at or above this score is a strength; at or below RISK_AT, a risk. */
const SIGNAL_AT = 0.6;
const RISK_AT = 0.35;
/** Sentences per group, at most. */
export const MAX_PER_GROUP = 3;

const ptr = (d: Dimension, ...path: string[]) => `/dimensions/${d}/${path.join('/')}`;
const has = (d: DimensionScore, key: string) => d.evidence[key] !== undefined && d.evidence[key] !== null;
const two = (x: number) => x.toFixed(2);
const lower = (s: string) => s.replace(/^./, (c) => c.toLowerCase()).replace(/\.$/, '');

/** What a dimension says, with its score and the explanation that carries its evidence. */
function reading(d: Dimension, s: DimensionScore): DecisionSentence {
  return {
    text: `${DIMENSION_LABELS[d]} ${two(s.score!)}${s.experimental ? ' (experimental)' : ''}: ${lower(s.explanation)}.`,
    evidence: [ptr(d, 'score'), ptr(d, 'explanation')],
  };
}

export function decisionSummary(insight: DecisionInput): DecisionSummary {
  const dims = insight.dimensions;
  // A demo topic's keyword is a Google topic id ("/m/02p52fy"): people read its title.
  const phrase = /^\/[mg]\//.test(insight.primary_keyword) ? (insight.title ?? insight.primary_keyword) : insight.primary_keyword;
  const scored = DIMENSIONS.filter((d) => dims[d]?.score !== null && dims[d]?.score !== undefined);
  const byScore = [...scored].sort((a, b) => dims[b].score! - dims[a].score!);

  const signals = byScore.filter((d) => dims[d].score! >= SIGNAL_AT && !dims[d].experimental).slice(0, 3);
  // A low momentum that predicts neither a rise nor a fall is no risk; one that predicts a fall is.
  const weak = [...byScore]
    .reverse()
    .filter(
      (d) =>
        dims[d].score! <= RISK_AT && (d !== 'momentum' || dims[d].evidence.label === undefined || dims[d].evidence.label === 'falling'),
    );

  const risks: DecisionSentence[] = weak.slice(0, 3).map((d) => reading(d, dims[d]));
  const scores = Object.fromEntries(DIMENSIONS.map((d) => [d, dims[d]?.score ?? null]));
  if (isPartial(scores))
    risks.unshift({
      text: `Thin evidence: ${scoredCount(scores)} of 8 dimensions could be scored (confidence ${two(insight.confidence)}); fewer than ${MIN_COMPLETE_DIMENSIONS} makes the insight partial, and its score says little.`,
      evidence: ['/confidence', ...DIMENSIONS.filter((d) => dims[d]?.score === null).map((d) => ptr(d, 'explanation'))],
    });
  const durability = dims.durability;
  if (durability?.score !== null && durability && has(durability, 'fad') && durability.evidence.fad === true)
    risks.push({
      text: 'The 5-year series bursts like a fad: one spike far above a low baseline.',
      evidence: [ptr('durability', 'evidence', 'fad')],
    });

  // What to validate first: what a founder asks first ("how many search for this, and will they pay?") where the evidence is weakest.
  const validate: DecisionSentence[] = [];
  const demand = dims.demand;
  if (demand && demand.score !== null && demand.evidence.basis === 'relative')
    validate.push({
      text: `How many people search for "${phrase}": demand is relative to "${String(demand.evidence.anchor)}" (${String(demand.evidence.ratio ?? '–')}×), not a count of searches; monthly searches need a provider with search volume (DataForSEO).`,
      evidence: [ptr('demand', 'evidence', 'basis'), ...(has(demand, 'ratio') ? [ptr('demand', 'evidence', 'ratio')] : [])],
    });
  else if (demand && demand.score !== null && demand.evidence.basis === 'searchInterest')
    validate.push({
      text: `How many people search for "${phrase}": demand is the Trends API's searchInterest (${String(demand.evidence.phrase_level ?? '–')}, ${String(demand.evidence.ratio ?? '–')}× its reference level ${String(demand.evidence.reference)}), one scale across requests but not a count of searches; monthly searches need a provider with search volume (DataForSEO).`,
      evidence: [ptr('demand', 'evidence', 'basis'), ...(has(demand, 'ratio') ? [ptr('demand', 'evidence', 'ratio')] : [])],
    });
  else if (demand && demand.score === null)
    validate.push({
      text: `How many people search for "${phrase}": demand could not be read (${lower(demand.explanation)}).`,
      evidence: [ptr('demand', 'explanation')],
    });
  for (const d of ['intent', 'pain'] as const) {
    const s = dims[d];
    if (!s) continue;
    const question = d === 'intent' ? 'Whether people will pay' : 'Whether the problem hurts';
    if (s.score === null)
      validate.push({
        text: `${question}: ${DIMENSION_LABELS[d].toLowerCase()} could not be read (${lower(s.explanation)}).`,
        evidence: [ptr(d, 'explanation')],
      });
    else if (s.score <= RISK_AT || (s.strength ?? 1) < 1 || s.experimental)
      validate.push({
        text: `${question}: ${DIMENSION_LABELS[d].toLowerCase()} scored ${two(s.score)}${s.experimental ? ', an experimental reading' : ''}${(s.strength ?? 1) < 1 ? ` from thin evidence (strength ${two(s.strength!)})` : ''}; talk to buyers before building.`,
        evidence: [ptr(d, 'score'), ...((s.strength ?? 1) < 1 ? [ptr(d, 'strength')] : []), ptr(d, 'explanation')],
      });
  }

  const whyNow: DecisionSentence[] = [];
  // The parts, said after the direction in this order (the most concrete first): three sentences at most are shown.
  const outlookPart: DecisionSentence[] = [];
  const durabilityPart: DecisionSentence[] = [];
  const momentumPart: DecisionSentence[] = [];
  const trendPart: DecisionSentence[] = [];
  // First, the one statement of direction: the sentences after it are its parts, each with its own window.
  const direction = directionStatement({
    momentum: dims.momentum,
    trend_class: insight.trend_class,
    outlook: insight.outlook,
    durability: dims.durability,
  });
  if (direction) whyNow.push({ text: direction.text, evidence: direction.evidence });
  const momentum = dims.momentum;
  // Said once: a momentum already read as a signal or a risk is not read again here.
  const momentumSaid = signals.includes('momentum') || weak.slice(0, 3).includes('momentum');
  if (momentumSaid) {
    // Its sentence is among the signals or the risks above.
  } else if (momentum && momentum.score !== null)
    momentumPart.push({
      text: `${lower(momentum.explanation).replace(/^a prediction/, 'Momentum is a prediction')}.`,
      evidence: [has(momentum, 'label') ? ptr('momentum', 'evidence', 'label') : ptr('momentum', 'score'), ptr('momentum', 'explanation')],
    });
  else if (momentum)
    momentumPart.push({
      text: `No prediction of the month ahead: ${lower(momentum.explanation)}.`,
      evidence: [ptr('momentum', 'explanation')],
    });
  if (insight.trend_class)
    trendPart.push({
      text: `Trend class: ${insight.trend_class}, a claim about the month ahead (its rule and how often it held are in trend_class_evidence).`,
      evidence: ['/trend_class', '/trend_class_evidence'],
    });
  // The direction says the years behind when it read them: not said twice.
  if (
    durability &&
    durability.score !== null &&
    has(durability, 'trajectory') &&
    !direction?.readings.some((r) => r.source === 'durability')
  )
    durabilityPart.push({
      text: `Over ${String(durability.evidence.years)} years the interest is ${String(durability.evidence.trajectory)}.`,
      evidence: [ptr('durability', 'evidence', 'trajectory'), ptr('durability', 'evidence', 'change')],
    });
  const served = servedHorizon(insight.outlook);
  if (served) {
    const { horizon, index } = served;
    outlookPart.push({
      text: `${insight.data_as_of ? `In the ${horizon.months} months after ${insight.data_as_of} (the last day of data), interest` : `In ${horizon.months} months interest`} is expected to average ${horizon.value} (the ${horizon.months} months before averaged ${horizon.recent}; its bands are in the outlook).`,
      evidence: [`/outlook/horizons/${index}/value`, `/outlook/horizons/${index}/recent`, ...(insight.data_as_of ? ['/data_as_of'] : [])],
    });
  }

  whyNow.push(...outlookPart, ...durabilityPart, ...momentumPart, ...trendPart);

  // At most three of each: what a founder reads in two minutes, the strongest first.
  return {
    signals: signals.map((d) => reading(d, dims[d])),
    risks: risks.slice(0, MAX_PER_GROUP),
    validate_first: validate.slice(0, MAX_PER_GROUP),
    why_now: whyNow.slice(0, MAX_PER_GROUP),
  };
}
