// What an answer rests on (issue 47): live research, recorded real answers, or
// a simulation; and the days of data behind it. Every place a person reads an
// insight (the API, the CSV, the report, the chart, the pages, the webhooks)
// takes its label from here, so a simulated insight can never pass for
// research and a recorded one never hides its age.
import { SOURCES } from './catalog.js';
import { kindOfProviders, profileOf, sourceOfProviders } from '../providers/registry.js';
import { rankKey } from './scoring/overall.js';
import type { ProvenanceKind } from './provenance-kind.js';

export { PROVENANCE_KINDS, type ProvenanceKind } from './provenance-kind.js';

/** The fields of an insight its provenance is read from. */
export interface ProvenanceFacts {
  source: string;
  /** The providers it was researched with (`google`, `google+dataforseo`, `replay`, `synthetic`); null for seeded series. */
  provider: string | null;
  /** First and last day of the data it rests on (every series it keeps), YYYY-MM-DD; null before any series was stored. */
  data_from: string | null;
  data_as_of: string | null;
}

export interface Provenance {
  kind: ProvenanceKind;
  /** What a person reads beside the title: "simulated", "recorded 2017-10-29 to 2022-10-23"; '' for live research. */
  label: string;
  /** The days of data in words: "2017-10-29 to 2022-10-23", one day alone, "to 2022-10-23", or "dates unknown". */
  dates: string;
  /** The source in words, for a report's header and a chart's caption. */
  source: string;
  data_from: string | null;
  data_as_of: string | null;
}

/**
 * Simulated: the synthetic source, or providers the registry calls simulated.
 * Recorded: a seeded recorded series, or recorded providers (replay). Anything
 * else was asked of a live source (Google, DataForSEO). The providers' kind is
 * decided in one place (kindOfProviders): a list mixing a simulation in is a simulation.
 */
export function provenanceKind(facts: Pick<ProvenanceFacts, 'source' | 'provider'>): ProvenanceKind {
  if (facts.source === SOURCES.synthetic) return 'simulated';
  const kind = kindOfProviders(facts.provider);
  if (kind !== 'live') return kind;
  return facts.source === SOURCES.recordedSeries ? 'recorded' : 'live';
}

const dates = (from: string | null, to: string | null) =>
  from && to ? (from === to ? from : `${from} to ${to}`) : to ? `to ${to}` : 'dates unknown';

export function provenanceOf(facts: ProvenanceFacts): Provenance {
  const kind = provenanceKind(facts);
  const span = dates(facts.data_from, facts.data_as_of);
  const base = { kind, dates: span, data_from: facts.data_from, data_as_of: facts.data_as_of };
  if (kind === 'simulated') return { ...base, label: 'simulated', source: profileOf('synthetic').source };
  if (kind === 'recorded') {
    return {
      ...base,
      label: `recorded ${span}`,
      source:
        facts.source === SOURCES.recordedSeries
          ? `a recorded real Google Trends series (GTAB anchor bank), ${span}`
          : `recorded real Google Trends answers (replay), ${span}`,
    };
  }
  return { ...base, label: '', source: `${sourceOfProviders(facts.provider)}, data to ${facts.data_as_of ?? 'an unknown day'}` };
}

/** The title as a person reads it: a simulated or recorded insight says so (once, even when its idea already did). */
export function displayTitle(title: string, facts: ProvenanceFacts): string {
  const { kind, label } = provenanceOf(facts);
  if (kind === 'live') return title;
  if (kind === 'simulated' && /\bsimulated\b/i.test(title)) return title;
  return `${title} (${label})`;
}

/** What a chart's line is: simulated interest is not Google's. */
export function interestNoun(kind: ProvenanceKind): string {
  if (kind === 'simulated') return 'Simulated interest';
  if (kind === 'recorded') return 'Recorded Google Trends interest';
  return 'Google Trends interest';
}

/**
 * The default order's tier, as migration 0021 generates it in rank_key: live
 * research first, then research on recorded real answers, then the simulated
 * world, then bare recorded series (one dimension of eight).
 */
export function provenanceTier(facts: Pick<ProvenanceFacts, 'source' | 'provider'>): number {
  if (facts.source === SOURCES.recordedSeries) return 0;
  const kind = provenanceKind(facts);
  return kind === 'simulated' ? 1 : kind === 'recorded' ? 2 : 3;
}

/** How far apart the tiers sit in rank_key: more than the 0-2 of completeness and overall × confidence. */
export const TIER_STEP = 2;
export const MAX_RANK_KEY = 3 * TIER_STEP + 2;

/** The default order's key, as migration 0021 generates it: the provenance tier, then overall.ts rankKey. */
export const rankKeyOf = (
  facts: Pick<ProvenanceFacts, 'source' | 'provider'>,
  overall: number,
  confidence: number,
  scores: Readonly<Record<string, number | null | undefined>>,
) => TIER_STEP * provenanceTier(facts) + rankKey(overall, confidence, scores);
