// Where an idea is searched, read from Google's map of the phrase compared with
// the anchor term (steps 17, 18 and 30).
//
// Why a comparison and not the phrase's own map: the anchor calibrates every
// place the same way step 12 calibrates demand, and it is what the recordings
// hold, so replay runs measure reach from real data too. Google answers a
// two-term map with shares: in each place, the phrase's percentage of the
// searches for the two terms. Shares are whole percents, so a phrase far rarer
// or far commoner than the anchor is measured coarsely (0/100 and 1/99 are the
// only steps at the extremes); the evidence shows the shares themselves.
import type { InterestByRegion } from '../../trends/types.js';

export interface PlaceInterest {
  /** ISO code for countries; empty for cities, which Google names only. */
  code: string;
  name: string;
  /** The phrase's share of the phrase + anchor searches there, 0–100. */
  share: number;
  /**
   * The phrase's strength relative to the anchor, scaled so the strongest
   * place is 100: its odds share / (100 − share) over the best place's odds.
   * If the anchor is searched about evenly across places, this is the
   * phrase's own map as Google would draw it.
   */
  relative: number;
}

/** Half of Google's 1 % rounding step: a 0 % anchor share is "below 1 %", not nothing. */
const SMALLEST_ANCHOR_SHARE = 0.5;

/** The places where Google has data for the pair, strongest first, and how many it has none for. */
export function placesVersusAnchor(answer: InterestByRegion): { places: PlaceInterest[]; withoutData: number } {
  if (answer.keywords.length !== 2) throw new Error(`expected a map of the phrase and the anchor, got ${answer.keywords.length} keywords`);
  const withData = answer.regions.filter((r) => r.hasData[0] || r.hasData[1]);
  const odds = withData.map((r) => r.values[0]! / Math.max(SMALLEST_ANCHOR_SHARE, r.values[1]!));
  const best = Math.max(0, ...odds);
  const places = withData
    .map((r, i) => ({
      code: r.geoCode,
      name: r.geoName,
      share: r.values[0]!,
      relative: best === 0 ? 0 : Math.round((odds[i]! / best) * 1000) / 10,
    }))
    .sort((a, b) => b.relative - a.relative || b.share - a.share);
  return { places, withoutData: answer.regions.length - withData.length };
}

export interface GeographicReach {
  /** Countries where the phrase is at least a tenth as strong (relative ≥ 10) as in its strongest country. */
  countriesWithInterest: number;
  /** Countries where Google has data for the pair. */
  countriesWithData: number;
  topCountry: string | null;
  /** The strongest country's part of all countries' relative interest (1 = all in one country). */
  topShare: number;
  /** Cities worldwide where the phrase registers (share ≥ 1 %) against the anchor. */
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
    citiesWithInterest: cities.filter((c) => c.share >= 1).length,
  };
}
