// The 8 dimensions (momentum lives in momentum.ts). Each takes the evidence a
// research run gathered and returns a score in [0,1], the numbers it came from
// and one line saying why — or null with the reason when evidence is missing.
import { clamp01, round3, unsupported, type DimensionScore } from './dimensions.js';
import type { TermShare } from '../research/query-signals.js';
import type { Trajectory } from '../research/series-analysis.js';
import type { GeographicReach } from '../research/geography.js';

const pct = (x: number) => `${Math.round(x * 100)}%`;

/**
 * Demand: the phrase's average 12-month interest relative to a fixed anchor
 * term in the same request (Google scales per request, so only a comparison
 * gives an absolute level). ratio 1 ⇒ 0.5; 4× the anchor ⇒ ~0.83; ¼ ⇒ ~0.17.
 */
export function scoreDemand(input: { anchor: string; phraseMean: number; anchorMean: number } | null): DimensionScore {
  if (!input) return unsupported('needs a comparison with the anchor term');
  const { anchor, phraseMean, anchorMean } = input;
  if (phraseMean === 0 && anchorMean === 0) return unsupported('Google has no data for the phrase or the anchor', { anchor });
  const ratio = (phraseMean + 0.5) / (anchorMean + 0.5);
  const score = 1 / (1 + Math.exp(-Math.log(ratio) / Math.log(4) * 1.6));
  return {
    score: round3(score),
    evidence: { anchor, phrase_mean: round3(phraseMean), anchor_mean: round3(anchorMean), ratio: round3(ratio) },
    explanation: `Searched ${round3(ratio)}× as much as the anchor term "${anchor}" over 12 months.`,
  };
}

/** Durability: a rising or stable 5-year trajectory beats a peaked or declining one; a fad loses. */
export function scoreDurability(input: { trajectory: Trajectory; change: number; lastVsPeak: number; fad: boolean; years: number } | null): DimensionScore {
  if (!input) return unsupported('needs at least half a year of weekly points from the 5-year series');
  const base: Record<Trajectory, number> = { rising: 0.85, stable: 0.65, declining: 0.3, peaked: 0.2 };
  const score = clamp01(base[input.trajectory] + 0.1 * Math.tanh(input.change) - (input.fad ? 0.25 : 0));
  return {
    score: round3(score),
    evidence: { trajectory: input.trajectory, change: input.change, last_vs_peak: input.lastVsPeak, fad: input.fad, years: input.years },
    explanation: `${input.trajectory[0]!.toUpperCase()}${input.trajectory.slice(1)} over ${input.years} years (trend ${input.change >= 0 ? '+' : ''}${pct(input.change)}${input.fad ? '; spiky like a fad' : ''}).`,
  };
}

/**
 * Reach: in how many countries the phrase is at least a tenth as strong as in
 * its strongest one, with diminishing returns, less a little when one country
 * holds most of it. `comparedWith` names the anchor when the map was drawn
 * against it (see domain/research/geography.ts).
 */
export function scoreReach(input: (GeographicReach & { comparedWith: string | null }) | null): DimensionScore {
  if (!input) return unsupported('needs interest by country');
  if (input.countriesWithData === 0) return unsupported('Google has no data by country for the phrase', { countries_with_data: 0, compared_with: input.comparedWith });
  const score = clamp01(Math.log1p(input.countriesWithInterest) / Math.log1p(40)) * (1 - 0.3 * input.topShare);
  return {
    score: round3(score),
    evidence: {
      countries_with_interest: input.countriesWithInterest,
      countries_with_data: input.countriesWithData,
      top_country: input.topCountry,
      top_share: round3(input.topShare),
      cities_with_interest: input.citiesWithInterest,
      compared_with: input.comparedWith,
    },
    explanation: `${input.countriesWithInterest} of ${input.countriesWithData} countries show at least a tenth of the top country's interest${input.topCountry ? ` (strongest: ${input.topCountry})` : ''}${input.comparedWith ? `, read against "${input.comparedWith}"` : ''}.`,
  };
}

/** Breadth: many related queries and topics with a varied vocabulary mean many ways in. */
export function scoreBreadth(input: { queries: number; topics: number; vocabulary: number } | null): DimensionScore {
  if (!input) return unsupported('needs related queries and topics');
  if (input.queries + input.topics === 0) return unsupported('Google lists no related queries or topics', { queries: 0, topics: 0 });
  const score = 0.5 * clamp01((input.queries + input.topics) / 40) + 0.5 * clamp01(input.vocabulary / 40);
  return {
    score: round3(score),
    evidence: { related_queries: input.queries, related_topics: input.topics, distinct_words: input.vocabulary },
    explanation: `${input.queries} related queries and ${input.topics} related topics using ${input.vocabulary} distinct words.`,
  };
}

function shareScore(name: string, share: TermShare | null, saturation: number, what: string): DimensionScore {
  if (!share) return unsupported(`needs related queries to measure ${what}`);
  if (share.total === 0) return unsupported('Google lists no related queries', { total: 0 });
  return {
    score: round3(clamp01(share.share / saturation)),
    evidence: { share: share.share, matched: share.matched, total: share.total, examples: share.examples.join(' | ') || null },
    explanation: `${share.matched} of ${share.total} related queries ${what}${share.examples[0] ? ` (e.g. "${share.examples[0]}")` : ''}.`,
  };
}

/** Pain: problem-seeking queries. A quarter of them saturates the score. */
export const scorePain = (share: TermShare | null) => shareScore('pain', share, 0.25, 'seek a fix or an alternative');

/** Intent: buying queries ("price", "best", "app" …). A third saturates the score. */
export const scoreIntent = (share: TermShare | null) => shareScore('intent', share, 0.33, 'show buying intent');

/** Whitespace: the inverse of competition signals (brands, "vs", "alternative"). */
export function scoreWhitespace(competition: TermShare | null, brands: TermShare | null): DimensionScore {
  if (!competition || !brands) return unsupported('needs related queries to measure competition');
  if (competition.total === 0) return unsupported('Google lists no related queries', { total: 0 });
  const pressure = clamp01(competition.share / 0.25) * 0.5 + clamp01(brands.share / 0.4) * 0.5;
  return {
    score: round3(1 - pressure),
    evidence: {
      comparison_share: competition.share,
      brand_share: brands.share,
      total: competition.total,
      examples: [...competition.examples, ...brands.examples].slice(0, 5).join(' | ') || null,
    },
    explanation: `${pct(brands.share)} of related queries name a brand and ${pct(competition.share)} compare options${pressure > 0.5 ? ': a crowded space' : ''}.`,
  };
}
