// Absolute demand (compare_anchor's second request, when a provider has search
// volume): how many people search for the phrase each month in the run's
// country, and what advertisers pay per click. Google Trends is relative by
// construction; these figures are Google Ads' own, relayed by DataForSEO.
import type { KeywordVolume, ResponseProvenance, SearchVolume } from '../trends/answers.js';

/** What step compare_anchor records of the phrase's absolute figures (absent on runs recorded before it asked). */
export interface VolumeOutput {
  outcome: 'served' | 'not_available' | 'failed';
  reason?: string;
  /** The market, as asked ('' = worldwide), and the provider's name for it. */
  geo: string;
  location: { name: string; code: number } | null;
  language: string;
  keywords: KeywordVolume[];
  provenance: ResponseProvenance | null;
}

/** The figures step compare_anchor records, from what the plan answered. */
export function volumeOutput(result: {
  outcome: VolumeOutput['outcome'];
  reason?: string;
  answer?: SearchVolume & { provenance?: ResponseProvenance };
}): VolumeOutput {
  const answer = result.answer;
  return {
    outcome: result.outcome,
    ...(result.reason ? { reason: result.reason } : {}),
    geo: answer?.geo ?? '',
    location: answer?.location ?? null,
    language: answer?.language ?? '',
    keywords: answer?.keywords ?? [],
    provenance: answer?.provenance ?? null,
  };
}

/** What an insight keeps of compare_anchor's figures (the API's `search_volume`). */
export interface SearchVolumeSummary {
  provider: string;
  geo: string;
  location: string;
  language: string;
  keywords: Array<{
    keyword: string;
    monthly_searches: number | null;
    history: Array<{ month: string; searches: number }>;
    cpc_usd: number | null;
    bid_low_usd: number | null;
    bid_high_usd: number | null;
    competition: 'LOW' | 'MEDIUM' | 'HIGH' | null;
    competition_index: number | null;
  }>;
}

export function searchVolumeSummary(volume: VolumeOutput | undefined): SearchVolumeSummary | null {
  if (!volume || volume.outcome !== 'served') return null;
  return {
    provider: volume.provenance?.provider ?? 'unknown',
    geo: volume.geo,
    location: volume.location?.name ?? 'the world',
    language: volume.language,
    keywords: volume.keywords.map((k) => ({
      keyword: k.keyword,
      monthly_searches: k.monthlySearches,
      history: k.history,
      cpc_usd: k.cpcUsd,
      bid_low_usd: k.bidLowUsd,
      bid_high_usd: k.bidHighUsd,
      competition: k.competition,
      competition_index: k.competitionIndex,
    })),
  };
}

/** The primary phrase's monthly searches, when the provider knew them: the basis of an absolute demand score. */
export interface AbsoluteDemand {
  keyword: string;
  monthlySearches: number;
  location: string;
  /** The months the average covers (first and last, `YYYY-MM`), when listed. */
  months: { from: string; to: string } | null;
}

export function absoluteDemand(volume: VolumeOutput | undefined, primary: string): AbsoluteDemand | null {
  if (!volume || volume.outcome !== 'served') return null;
  const own = volume.keywords.find((k) => k.keyword.toLowerCase() === primary.toLowerCase());
  if (!own || own.monthlySearches === null) return null;
  return {
    keyword: own.keyword,
    monthlySearches: own.monthlySearches,
    location: volume.location?.name ?? 'the world',
    months: own.history.length > 0 ? { from: own.history[0]!.month, to: own.history.at(-1)!.month } : null,
  };
}

const count = (n: number) => n.toLocaleString('en-US');

export function describeVolume(o: VolumeOutput): string {
  if (o.outcome !== 'served') return `monthly searches ${o.outcome === 'failed' ? 'not read' : 'not available'}: ${o.reason ?? ''}`;
  const known = o.keywords.filter((k) => k.monthlySearches !== null);
  if (known.length === 0) return `Google Ads has too little data for the phrases in ${o.location?.name ?? 'the world'}`;
  return `${known
    .slice(0, 3)
    .map((k) => `"${k.keyword}" ${count(k.monthlySearches!)}/month${k.cpcUsd !== null ? ` (CPC $${k.cpcUsd.toFixed(2)})` : ''}`)
    .join(', ')} in ${o.location?.name ?? 'the world'}`;
}
