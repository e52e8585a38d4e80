// Where an idea is searched (steps interest_by_country, interest_by_city and geographic_reach), read from one of two maps
// Google draws.
//
// - The phrase's own map: each place's interest, scaled so the strongest place
//   is 100. Always informative; this is the default.
// - The map of the phrase and the anchor term together: in each place, the
//   phrase's share (whole percent) of the searches for the two. Its odds,
//   share / (100 − share), over the best place's odds give the same 0–100
//   reading if the anchor is searched about evenly, and each place's share is
//   a calibrated level on top. But shares are whole percents: when one term is
//   far commoner, the other sits at 0 or 1 % everywhere and the map says
//   nothing. So it is used only when step compare_anchor found the two within
//   COMPARABLE_RATIO of each other (the rarer one then averages 2 % or more).
//   It is also the only kind of map the replay recordings hold (pizza and
//   bagel, 40× apart), which is how replay runs get a real reach.
import type { InterestByRegion } from '../trends/answers.js';

export interface PlaceInterest {
  /** ISO code for countries; empty for cities, which Google names only. */
  code: string;
  name: string;
  /** Interest relative to the strongest place, 0–100. */
  relative: number;
  /** Phrase-and-anchor maps only: the phrase's share of the two terms' searches there, 0–100. */
  share: number | null;
}

/** compare_anchor's phrase/anchor ratio within which the map is read against the anchor (see above). */
export const COMPARABLE_RATIO = 50;

/** Whether the phrase's map should be drawn against the anchor, from compare_anchor's 12-month means. */
export function mapAgainstAnchor(phraseMean: number, anchorMean: number): boolean {
  if (phraseMean <= 0 || anchorMean <= 0) return false;
  const ratio = phraseMean / anchorMean;
  return ratio <= COMPARABLE_RATIO && ratio >= 1 / COMPARABLE_RATIO;
}

/** Half of Google's 1 % rounding step: a 0 % anchor share is "below 1 %", not nothing. */
const SMALLEST_ANCHOR_SHARE = 0.5;

/**
 * The places where Google has data, strongest first, and how many it has none
 * for. A one-keyword map is the phrase's own; a two-keyword map is the phrase
 * (first) against the anchor.
 */
export function placesFromMap(answer: InterestByRegion): { places: PlaceInterest[]; withoutData: number } {
  const pair = answer.keywords.length === 2;
  if (!pair && answer.keywords.length !== 1)
    throw new Error(`expected a map of the phrase, alone or with the anchor; got ${answer.keywords.length} keywords`);
  const withData = answer.regions.filter((r) => r.hasData.some(Boolean));
  const strength = withData.map((r) => (pair ? r.values[0]! / Math.max(SMALLEST_ANCHOR_SHARE, r.values[1]!) : r.values[0]!));
  const best = Math.max(0, ...strength);
  const places = withData
    .map((r, i) => ({
      code: r.geoCode,
      name: r.geoName,
      relative: best === 0 ? 0 : Math.round((strength[i]! / best) * 1000) / 10,
      share: pair ? r.values[0]! : null,
    }))
    .sort((a, b) => b.relative - a.relative || (b.share ?? 0) - (a.share ?? 0));
  return { places, withoutData: answer.regions.length - withData.length };
}

export interface GeographicReach {
  /** Countries where the phrase is at least a tenth as strong (relative ≥ 10) as in its strongest country. */
  countriesWithInterest: number;
  /** Countries where Google has data. */
  countriesWithData: number;
  topCountry: string | null;
  /** The strongest country's part of all countries' relative interest (1 = all in one country). */
  topShare: number;
  /** Cities worldwide where the phrase registers at all (a value of 1 or more). */
  citiesWithInterest: number;
}

/** The threshold of "real interest", on the 0–100 relative scale. */
export const INTEREST_THRESHOLD = 10;

export function geographicReach(countries: PlaceInterest[], cities: PlaceInterest[]): GeographicReach {
  const total = countries.reduce((sum, c) => sum + c.relative, 0);
  return {
    countriesWithInterest: countries.filter((c) => c.relative >= INTEREST_THRESHOLD).length,
    countriesWithData: countries.length,
    topCountry: countries[0]?.name ?? null,
    topShare: total === 0 ? 0 : Math.round((countries[0]!.relative / total) * 1000) / 1000,
    citiesWithInterest: cities.filter((c) => (c.share ?? c.relative) > 0).length,
  };
}
