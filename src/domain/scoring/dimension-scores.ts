// The 8 dimensions (momentum lives in momentum.ts). Each takes the evidence a
// research run gathered and returns a score in [0,1], the numbers it came from
// and one line saying why — or null with the reason when evidence is missing.
// Breadth, pain, intent and whitespace live in signal-scores.ts, re-exported here.
import { unsupported, type DimensionScore } from './dimensions.js';
import { RECENT_ABOVE_MEAN, type Trajectory, type TrajectoryReading } from '../research/series-analysis.js';
import type { GeographicReach } from '../research/geography.js';
import type { AbsoluteDemand } from '../research/search-volume.js';
import type { ComparableScale } from '../trends/provider-profile.js';
import { clamp01, round3 } from '../numbers.js';

const round1 = (x: number) => Math.round(x * 10) / 10;
const SEASONAL = 'seasonal';
/** A change as a signed whole percent, rounded before it is signed (−0.4 % reads "0%", not "-0%"). */
export const signedPct = (x: number) => {
  const r = Math.round(x * 100);
  return `${r > 0 ? '+' : r < 0 ? '-' : ''}${Math.abs(r)}%`;
};

/**
 * Demand: the phrase's average 12-month interest relative to a fixed anchor
 * term in the same request (Google scales per request, so only a comparison
 * gives an absolute level). ratio 1 ⇒ 0.5; 4× the anchor ⇒ ~0.83; ¼ ⇒ ~0.17.
 */
export function scoreDemand(
  given: { anchor: string | null; scale?: ComparableScale; phraseMean: number; anchorMean: number } | null,
  absolute: AbsoluteDemand | null = null,
): DimensionScore {
  if (given?.anchor === null && given.scale) return scoreScaledDemand({ ...given, scale: given.scale }, absolute);
  const input = given?.anchor ? { ...given, anchor: given.anchor } : null;
  const relative =
    input && !(input.phraseMean === 0 && input.anchorMean === 0) ? (input.phraseMean + 0.5) / (input.anchorMean + 0.5) : null;
  const relativeEvidence = input
    ? {
        anchor: input.anchor,
        phrase_mean: round3(input.phraseMean),
        anchor_mean: round3(input.anchorMean),
        ...(relative ? { ratio: round3(relative) } : {}),
      }
    : null;
  if (absolute) return scoreAbsoluteDemand(absolute, relativeEvidence);
  if (!input) return unsupported('needs a comparison with the anchor term');
  if (relative === null) return unsupported('Google has no data for the phrase or the anchor', { anchor: input.anchor, basis: 'relative' });
  const score = 1 / (1 + Math.exp((-Math.log(relative) / Math.log(4)) * 1.6));
  return {
    score: round3(score),
    evidence: { basis: 'relative', ...relativeEvidence },
    explanation: `Searched ${round3(relative)}× as much as the anchor term "${input.anchor}" over 12 months (relative: no provider gave monthly searches).`,
  };
}

/**
 * Demand from values on one scale across requests (the Trends API's searchInterest): the phrase's 12-month mean
 * against the scale's reference level, on the same curve as the anchor ratio (the reference scores 0.5, 4× it
 * ~0.83). No anchor term: `phraseMean` and `anchorMean` are the phrase's and the reference's on one 0–100.
 */
function scoreScaledDemand(
  input: { scale: ComparableScale; phraseMean: number; anchorMean: number },
  absolute: AbsoluteDemand | null,
): DimensionScore {
  const { scale, phraseMean, anchorMean } = input;
  const ratio = anchorMean > 0 ? phraseMean / anchorMean : null;
  const level = ratio === null ? null : round3(ratio * scale.reference);
  const scaled = {
    scale: scale.values,
    reference: scale.reference,
    ...(level !== null ? { phrase_level: level, ratio: round3(ratio!) } : {}),
  };
  if (absolute) {
    const score = scoreAbsoluteDemand(absolute, null);
    return { ...score, evidence: { ...score.evidence, ...scaled } };
  }
  if (ratio === null || phraseMean === 0)
    return unsupported(`the Trends API has no ${scale.values} for the phrase over 12 months`, { basis: scale.values, ...scaled });
  const score = 1 / (1 + Math.exp((-Math.log(ratio) / Math.log(4)) * 1.6));
  return {
    score: round3(score),
    evidence: { basis: scale.values, ...scaled },
    explanation: `A 12-month mean ${scale.values} of ${level} on the Trends API's scale, one scale across requests (no anchor term asked): ${round3(ratio)}× the reference level ${scale.reference}.`,
  };
}

/** Monthly searches a demand score of 0 and of 1 stand for: 10 and a million, on a log scale between (decades 0.2 apart). */
export const ABSOLUTE_DEMAND_RANGE = { zero: 10, one: 1_000_000 } as const;

/**
 * Demand from absolute monthly searches (Google Ads through DataForSEO): each
 * tenfold more searches adds 0.2, from 10 a month (0) to a million (1). The
 * anchor comparison stays in the evidence, so relative scores remain comparable.
 */
function scoreAbsoluteDemand(a: AbsoluteDemand, relative: { anchor: string; ratio?: number } | null): DimensionScore {
  const { zero, one } = ABSOLUTE_DEMAND_RANGE;
  const score = clamp01((Math.log10(Math.max(1, a.monthlySearches)) - Math.log10(zero)) / (Math.log10(one) - Math.log10(zero)));
  const months = a.months ? `, ${a.months.from} to ${a.months.to}` : '';
  return {
    score: round3(score),
    evidence: {
      basis: 'absolute',
      keyword: a.keyword,
      monthly_searches: a.monthlySearches,
      location: a.location,
      ...(a.months ? { months_from: a.months.from, months_to: a.months.to } : {}),
      // The relative reading beside it: the same anchor and method for every provider.
      ...(relative ? { anchor: relative.anchor, ...(relative.ratio !== undefined ? { anchor_ratio: relative.ratio } : {}) } : {}),
    },
    explanation: `About ${a.monthlySearches.toLocaleString('en-US')} searches a month for "${a.keyword}" in ${a.location} (Google Ads${months}); scored on a log scale from ${zero.toLocaleString('en-US')} a month (0) to ${one.toLocaleString('en-US')} (1).`,
  };
}

/**
 * Durability: a rising or stable 5-year trajectory beats a peaked or declining
 * one; a fad loses. The trend is the last year's level against the first's
 * (series-analysis.ts trajectory), said beside the recent level, so a fall
 * from an early peak never reads as a fad while interest is above its usual
 * level.
 */
export function scoreDurability(
  input: (Omit<TrajectoryReading, 'peakPosition'> & { fad: boolean; years: number }) | null,
  /** The trend class of the 90 days (momentum's evidence), when known: a seasonal one is said beside a peak or decline. */
  trendClass?: string | null,
): DimensionScore {
  if (!input) return unsupported('needs at least half a year of weekly points from the 5-year series');
  const base: Record<Trajectory, number> = { rising: 0.85, stable: 0.65, recovering: 0.55, declining: 0.3, peaked: 0.2 };
  const aboveUsual = input.recentVsMean !== undefined && input.recentVsMean >= RECENT_ABOVE_MEAN;
  // A shape recorded before the recent-level rule (or by another reader) is read again under it:
  // interest above its usual level is never a peak or a decline.
  const shape: Trajectory =
    aboveUsual && (input.trajectory === 'peaked' || input.trajectory === 'declining')
      ? input.change > 0.25
        ? 'rising'
        : input.change < -0.25
          ? 'recovering'
          : 'stable'
      : input.trajectory;
  // A burst the recent level still holds has not faded (volatility() says so for new runs; recorded ones may not have).
  const fad = input.fad && !aboveUsual;
  const score = clamp01(base[shape] + 0.1 * Math.tanh(input.change) - (fad ? 0.25 : 0));
  const levels =
    input.firstMean !== undefined && input.lastMean !== undefined
      ? `the last fifth averaged ${round1(input.lastMean)} against ${round1(input.firstMean)} in the first, `
      : '';
  const recent =
    input.recentVsMean !== undefined
      ? `; the last ${input.recentPoints ?? 'few'} weeks are at ${round1(input.recentVsMean)}× the ${input.years}-year mean`
      : '';
  const spiky = input.fad && !fad ? '; spiky, but not a fad: the recent level holds above the mean' : fad ? '; spiky like a fad' : '';
  // A seasonal series is not "peaked" in the sense a founder fears (founder review, issue 47): the label is
  // of the years, the class of the season; the text says how both hold.
  const seasonal =
    trendClass === SEASONAL && (shape === 'peaked' || shape === 'declining')
      ? `; the trend class is seasonal: interest comes and goes with the season within each year, and ${shape === 'peaked' ? 'its highest season was years ago' : 'each season has been lower than the last'}, so the ${shape === 'peaked' ? 'peak' : 'decline'} is of the years, not of this season`
      : '';
  return {
    score: round3(score),
    evidence: {
      trajectory: shape,
      change: input.change,
      last_vs_peak: input.lastVsPeak,
      fad,
      ...(input.fad && !fad ? { spiky: true } : {}),
      ...(input.firstMean !== undefined ? { first_mean: input.firstMean } : {}),
      ...(input.lastMean !== undefined ? { last_mean: input.lastMean } : {}),
      ...(input.recentVsMean !== undefined ? { recent_vs_mean: input.recentVsMean } : {}),
      years: input.years,
      ...(trendClass ? { trend_class: trendClass } : {}),
    },
    explanation: `${shape[0]!.toUpperCase()}${shape.slice(1)} over ${input.years} years (${levels}trend ${signedPct(input.change)}${recent}${spiky}${seasonal}).`,
  };
}

/**
 * Reach: in how many countries the phrase is at least a tenth as strong as in
 * its strongest one, with diminishing returns, less a little when one country
 * holds most of it. `comparedWith` names the anchor when the map was drawn
 * against it (see domain/research/geography.ts).
 */
export function scoreReach(
  input:
    | (GeographicReach & {
        comparedWith: string | null;
        /** A market's map is of its regions (a US run's states), the world's of countries. */ places?: 'countries' | 'regions';
      })
    | null,
): DimensionScore {
  if (!input) return unsupported('needs interest by country');
  if (input.countriesWithData === 0)
    return unsupported(`Google has no data by ${input.places === 'regions' ? 'region' : 'country'} for the phrase`, {
      countries_with_data: 0,
      compared_with: input.comparedWith,
    });
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
    explanation: `${input.countriesWithInterest} of ${input.countriesWithData} ${input.places ?? 'countries'} show at least a tenth of the top ${input.places === 'regions' ? 'region' : 'country'}'s interest${input.topCountry ? ` (strongest: ${input.topCountry})` : ''}${input.comparedWith ? `, read against "${input.comparedWith}"` : ''}.`,
  };
}

export * from './signal-scores.js';
