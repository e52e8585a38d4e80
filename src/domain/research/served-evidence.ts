// What the API serves of a run's related lists and maps (steps related_queries_top to interest_by_city), kept on
// the insight when the run commits: short, stable shapes, not Google's.
import type { PlaceInterest } from './geography.js';

/**
 * What Google served for a related list (steps related_queries_top to related_topics_rising):
 *   listed        Google listed items (maybe none in one of top and rising)
 *   empty         it answered with no list: its answer to automated clients since 2024-08-20
 *   not_recorded  replay has no recording of it (it never invents one)
 *   not_available no configured provider lists them (a capability none has)
 *   failed        the request failed for good; the research went on without it
 */
export const RELATED_SERVED = ['listed', 'empty', 'not_recorded', 'not_available', 'failed'] as const;
export type RelatedServed = (typeof RELATED_SERVED)[number];

export interface RelatedItem {
  label: string;
  /** Top lists: interest relative to the strongest item (0–100). Rising lists: the rise in percent. */
  value: number;
  /** Google's own wording: "100", "+250%", "Breakout". */
  formatted_value: string;
  /** Google marks a rise above 5000 % as "Breakout". */
  breakout: boolean;
  /** Topics only: Google's topic id. */
  topic_id?: string;
}

export interface RelatedSummary {
  keyword: string;
  queries: { top: RelatedItem[]; rising: RelatedItem[]; served?: RelatedServed };
  topics: { top: RelatedItem[]; rising: RelatedItem[]; served?: RelatedServed };
}

export interface GeographySummary {
  keyword: string;
  /** "own": the phrase's own map (strongest country = 100); "against_anchor": its share of searches against the anchor term. */
  map: 'own' | 'against_anchor';
  compared_with: string | null;
  /** Why this map was used (interest_by_country's reason). */
  reason: string;
  countries: Array<{ code: string; name: string; relative: number; share: number | null }>;
  countries_with_data: number;
}

/** Items per related list, and countries, kept on the insight. */
export const RELATED_LIMIT = 25;
export const COUNTRIES_LIMIT = 20;

interface StepRelatedItem {
  label: string;
  value: number;
  breakout: boolean;
  formattedValue: string;
  mid?: string;
}

const item = (i: StepRelatedItem): RelatedItem => ({
  label: i.label,
  value: i.value,
  formatted_value: i.formattedValue,
  breakout: i.breakout,
  ...(i.mid ? { topic_id: i.mid } : {}),
});

export function relatedSummary(
  keyword: string,
  lists: { queriesTop: StepRelatedItem[]; queriesRising: StepRelatedItem[]; topicsTop: StepRelatedItem[]; topicsRising: StepRelatedItem[] },
  served?: { queries: RelatedServed; topics: RelatedServed },
): RelatedSummary {
  const take = (xs: StepRelatedItem[]) => xs.slice(0, RELATED_LIMIT).map(item);
  return {
    keyword,
    queries: { top: take(lists.queriesTop), rising: take(lists.queriesRising), ...(served ? { served: served.queries } : {}) },
    topics: { top: take(lists.topicsTop), rising: take(lists.topicsRising), ...(served ? { served: served.topics } : {}) },
  };
}

export function geographySummary(map: {
  keyword: string;
  compared_with: string | null;
  reason: string;
  places: PlaceInterest[];
}): GeographySummary {
  return {
    keyword: map.keyword,
    map: map.compared_with === null ? 'own' : 'against_anchor',
    compared_with: map.compared_with,
    reason: map.reason,
    countries: map.places.slice(0, COUNTRIES_LIMIT).map((p) => ({ code: p.code, name: p.name, relative: p.relative, share: p.share })),
    countries_with_data: map.places.length,
  };
}
