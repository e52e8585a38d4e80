// How a research run asks Google Trends for what its steps need. Google's
// requests are the scarce resource (see the README's budget section), so the
// default plan spends as few as the evidence allows:
//
//   autocomplete   the phrases in order, until one is a Google topic (the one
//                  step choose_primary chooses), instead of every phrase;
//   30 days        the last 30 days of the 90-day answer, rescaled by their
//                  own maximum, instead of a request of its own;
//   comparison     the secondary phrases and the anchor in one 12-month
//                  request (up to 5 terms), instead of two;
//   12 months      the last 53 weeks of the 5-year answer (weekly either way;
//                  step clean_series reads them for coverage only), instead of a request;
//   related        related queries, then related topics, each one request of
//                  its own: Google serves them through the embed flow (an embed
//                  page and its data: 2 HTTPS requests, the page paced by the
//                  route's embed quota), where the explore page's own widgets
//                  answer empty lists since 2024-08-20. Topics come back empty
//                  through it too today; they are asked, so a run reads them
//                  the day Google lists them.
//   maps           when the phrase's own maps are the ones steps interest_by_country and interest_by_city read, one
//                  explore for the primary phrase answers both (the comparison
//                  is asked first, so the plan knows which); else one explore of
//                  the phrase and the anchor.
//   modifiers      one 12-month comparison of the phrase with its pain, buying
//                  and comparison phrases (modifier-evidence.ts), read by
//                  steps demand_breadth to competition_signals (one trends job for the four).
//
// That is 8 trends jobs and 16 HTTPS requests per run (4 of them the embed
// flow's) when the first phrase is a topic, against 16 jobs and 29 requests
// for one keyword per request ("single", kept as the
// baseline bench:google measures against). bench:google reports what it comes
// to on a simulated world.
import type {
  ExploreAnswer,
  ExplorePart,
  InterestByRegion,
  InterestOverTime,
  RelatedList,
  ResponseProvenance,
  SearchVolume,
  Timeframe,
  TrendsRequest,
  TrendsResponse,
} from '../domain/trends/answers.js';

import { mapAgainstAnchor } from '../domain/research/geography.js';
import type { RelatedServed } from '../domain/research/served-evidence.js';
import { MAX_ITEM_CHARS, modifierRequest, type ModifierRequest } from '../domain/research/modifier-evidence.js';
import type { TrendsPlanName } from '../config.js';
import type { ComparableScale } from '../domain/trends/provider-profile.js';
import { TrendsFailedError } from '../providers/gateway.js';

/** An answer with where it came from (shown with the step's output). */
type Sourced<T> = T & { provenance?: ResponseProvenance };

export type Topic = { mid: string; title: string; type: string };

export interface AutocompleteResult {
  topics: Record<string, Topic[]>;
  /** Phrases not asked: an earlier phrase was already a topic (or an operator hint decided). */
  not_asked: string[];
  /** Set when no configured provider has topic autocomplete: why (no phrase was asked). */
  unavailable?: string;
}

/** Absolute figures of the primary phrase and its variants (step compare_anchor), when a provider has them. */
export interface VolumeResult {
  outcome: 'served' | 'not_available' | 'failed';
  reason?: string;
  answer?: Sourced<SearchVolume>;
}

export interface SeriesResult {
  answer: Sourced<InterestOverTime>;
  /** Set when the series was cut from a longer answer (e.g. "last 30 days of the 90-day answer, rescaled"). */
  derived_from?: string;
}

export interface ComparisonResult {
  /** The secondary phrases' means, with the primary's, in one request. */
  secondary: { keywords: string[]; timeframe: Timeframe; means: Record<string, number> };
  /** The primary against the anchor: mean interest of each over the same request. */
  anchor: { phraseMean: number; anchorMean: number; points: number; provenance: TrendsResponse['provenance'] | null };
}

export interface RelatedResult {
  served: RelatedServed;
  list: Sourced<RelatedList> | null;
  reason?: string;
}

/**
 * What became of the modifier comparison (steps demand_breadth to competition_signals):
 *   served        the series of the phrase and each family
 *   no_data       Google has too little data for the phrase (every point hasData false)
 *   not_recorded  replay has no recording of it: the steps read the recorded related lists instead
 *   not_available no configured provider answers interest over time
 *   not_asked     the phrase is too long to carry any modifier in one comparison item
 *   failed        the request failed for good (the reason says why)
 */
export const MODIFIER_OUTCOMES = ['served', 'no_data', 'not_recorded', 'not_available', 'not_asked', 'failed'] as const;
export type ModifierOutcome = (typeof MODIFIER_OUTCOMES)[number];
export interface ModifierResult {
  request: ModifierRequest | null;
  outcome: ModifierOutcome;
  reason?: string;
  answer?: Sourced<InterestOverTime>;
}

export interface TrendsPlan {
  readonly name: TrendsPlanName;
  autocomplete(phrases: string[], hinted: boolean): Promise<AutocompleteResult>;
  series(keyword: string, timeframe: Timeframe): Promise<SeriesResult>;
  comparison(primary: string, secondary: string[], anchor: string): Promise<ComparisonResult>;
  /** How much each candidate phrase is searched, on one scale with the anchor (step choose_primary): the request the comparison asks again. */
  measure(phrases: string[], anchor: string): Promise<Measurement>;
  related(keyword: string, kind: 'relatedQueries' | 'relatedTopics'): Promise<RelatedResult>;
  /** The phrase compared with its pain, buying and comparison phrases over 12 months, in one request. */
  /** `own`: the idea, whose words are not asked as modifiers. */
  modifiers(keyword: string, own?: readonly string[]): Promise<ModifierResult>;
  /** Worldwide, by country or city; two keywords give each one's share per place. */
  map(keywords: string[], resolution: 'COUNTRY' | 'CITY'): Promise<Sourced<InterestByRegion>>;
  /** Monthly searches and cost per click of the phrases in the run's country (worldwide when it has none). */
  volume(keywords: string[]): Promise<VolumeResult>;
}

type Fetch = (request: TrendsRequest) => Promise<TrendsResponse>;

function expectKind<K extends TrendsResponse['kind']>(response: TrendsResponse, kind: K): Extract<TrendsResponse, { kind: K }> {
  if (response.kind !== kind) throw new Error(`expected a ${kind} answer, got ${response.kind}`);
  return response as Extract<TrendsResponse, { kind: K }>;
}

const mean = (answer: InterestOverTime, i: number) =>
  answer.points.reduce((s, p) => s + (p.values[i] ?? 0), 0) / Math.max(1, answer.points.length);
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * The last `days` points (days or weeks) of an answer, rescaled so their own maximum is
 * 100: what a request for that window returns, up to the precision the longer
 * window's integers carried. Kept to `digits` decimals: scoring reads the
 * precision there is, storage rounds to Google's integers.
 */
export function lastDaysRescaled(answer: InterestOverTime, days: number, digits = 0): InterestOverTime {
  const points = answer.points.slice(-days);
  const max = Math.max(0, ...points.map((p) => p.values[0] ?? 0));
  return {
    ...answer,
    points: points.map((p) => ({ ...p, values: p.values.map((v) => (max > 0 ? round((v * 100) / max, digits) : 0)) })),
  };
}

/**
 * The primary's and the anchor's means as a request for just the two would
 * give them: a comparison of five terms is scaled by its most popular term,
 * which may be neither, and the demand score reads the two means on their own
 * scale (it smooths each by half of Google's rounding step).
 */
function pairMeans(answer: InterestOverTime, a: number, b: number): [number, number] {
  const peak = Math.max(0, ...answer.points.flatMap((p) => [p.values[a] ?? 0, p.values[b] ?? 0]));
  const scale = peak > 0 ? 100 / peak : 1;
  return [mean(answer, a) * scale, mean(answer, b) * scale];
}

/** Below this peak in the five-term comparison, the primary and the anchor are asked as a pair (see comparison). */
const PAIR_PEAK_FLOOR = 25;
/** What one explore for the primary phrase over 12 months answers when its own maps are read: steps interest_by_country and interest_by_city share its trends job. */
const MAP_PARTS = ['mapCountry', 'mapCity'] as const;
/** The related lists steps related_queries_top to related_topics_rising read: parts of the phrase's explore in the `shared` plan. */
const RELATED_PARTS = ['relatedQueries', 'relatedTopics'] as const;

/** choose_primary's measurement of the candidate phrases: their 12-month means in one comparison with the anchor. */
export interface Measurement {
  /** The phrases in the order asked (the comparison of steps compare_secondary and compare_anchor asks them in this order again). */
  keywords: string[];
  means: Record<string, number>;
  anchorMean: number;
  timeframe: '12m';
  provenance: ResponseProvenance | null;
}

/** What the plan needs to know of its run: the phrases to compare and the anchor (steps choose_primary and compare_anchor). */
export interface PlanRun {
  secondary(): string[];
  /** The phrases step choose_primary measured, in the order it asked them (none on runs recorded before it measured). */
  measured(): string[];
  anchor: string;
  /** The series provider's scale across requests (the Trends API's searchInterest): then the anchor is never asked (see againstAnchor). */
  scale?: ComparableScale;
}

const served = (list: Sourced<RelatedList>): RelatedResult => ({
  served: list.outcome === 'empty' || list.outcome === 'no_data' ? 'empty' : 'listed',
  list,
});

/** Evidence a run can do without: a request that failed for good is recorded with its reason, and the research goes on. */
async function orFailed<T>(ask: () => Promise<T>, failed: (reason: string, error: TrendsFailedError) => T): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof TrendsFailedError) return failed(error.message, error);
    throw error;
  }
}

const part = <P extends keyof ExploreAnswer>(answer: ExploreAnswer, name: P) => {
  const value = answer[name];
  // Not there for good (replay has no recording of it): the step fails at once, as for any unanswerable request.
  if (value === undefined)
    throw new TrendsFailedError(
      answer.missing?.[String(name)] ?? `the explore answer has no ${String(name)}`,
      answer.missing?.[String(name)] !== undefined && !answer.unavailable?.includes(String(name)),
      answer.unavailable?.includes(String(name)) ?? false,
    );
  // A part merged from another provider's answer keeps its own provenance (provider-router.ts).
  const own = (value as { provenance?: ResponseProvenance }).provenance;
  return { ...(value as object), provenance: own ?? (answer as TrendsResponse).provenance } as NonNullable<ExploreAnswer[P]> & {
    provenance: TrendsResponse['provenance'];
  };
};

export function trendsPlan(name: TrendsPlanName, fetch: Fetch, geo: string, run?: PlanRun, language = 'en'): TrendsPlan {
  // A run about one market reads its regions where a worldwide run reads countries (reach, step interest_by_country).
  const marketMap = async (keywords: string[], resolution: 'COUNTRY' | 'CITY') =>
    expectKind(
      await fetch({ kind: 'interestByRegion', keywords, timeframe: '12m', geo, resolution: resolution === 'COUNTRY' ? 'REGION' : 'CITY' }),
      'interestByRegion',
    );
  const interest = async (keywords: string[], timeframe: Timeframe, where = geo) =>
    expectKind(await fetch({ kind: 'interestOverTime', keywords, timeframe, geo: where }), 'interestOverTime');
  // A related list on its own (Google: the embed flow); a recording replay does not have is not_recorded, never failed.
  const relatedList = (keyword: string, kind: 'relatedQueries' | 'relatedTopics') =>
    orFailed<RelatedResult>(
      async () => served(expectKind(await fetch({ kind, keyword, timeframe: '12m', geo }), kind)),
      (reason, error) => ({
        served: error.notRecorded ? 'not_recorded' : error.notAvailable ? 'not_available' : 'failed',
        list: null,
        reason,
      }),
    );
  const autocompleteOne = async (term: string) =>
    expectKind(await fetch({ kind: 'autocomplete', term }), 'autocomplete').topics.slice(0, 5);
  // No provider with topic autocomplete: nothing asked, step choose_primary takes the first phrase and says why.
  const withAutocomplete = async (phrases: string[], ask: () => Promise<AutocompleteResult>): Promise<AutocompleteResult> => {
    try {
      return await ask();
    } catch (error) {
      if (error instanceof TrendsFailedError && error.notAvailable) return { topics: {}, not_asked: phrases, unavailable: error.message };
      throw error;
    }
  };
  // The terms beside the anchor over 12 months, the anchor last. A provider whose values are one scale across requests
  // (run.scale) is not asked the anchor: its column is the scale's reference level, and every column is put on the
  // answer's 0–100 by the searchInterest the answer's 100 stands for (provenance.scalePeak).
  const againstAnchor = async (keywords: string[], anchor: string): Promise<InterestOverTime & TrendsResponse> => {
    const scale = run?.scale;
    if (!scale) return interest([...keywords, anchor], '12m');
    const answer = await interest(keywords, '12m');
    const peak = answer.provenance?.scalePeak;
    if (peak === undefined)
      throw new Error(
        `the series provider (${answer.provenance?.provider ?? 'unknown'}) declares ${scale.values} one scale across requests, but its answer does not say what its 100 stands for (provenance.scalePeak)`,
      );
    const top = Math.max(peak, scale.reference);
    return {
      ...answer,
      keywords: [...keywords, anchor],
      points: answer.points.map((p) => ({
        ...p,
        values: [...keywords.map((_, i) => round(((p.values[i] ?? 0) * peak) / top, 2)), round((scale.reference * 100) / top, 2)],
        hasData: [...keywords.map((_, i) => p.hasData[i] ?? false), true],
      })),
    };
  };
  const measure = async (phrases: string[], anchor: string): Promise<Measurement> => {
    const keywords = [...new Set(phrases.filter((p) => p !== anchor))].slice(0, 4);
    const answer = await againstAnchor(keywords, anchor);
    return {
      keywords,
      means: Object.fromEntries(keywords.map((k, i) => [k, round(mean(answer, i), 1)])),
      anchorMean: round(mean(answer, keywords.length), 1),
      timeframe: '12m',
      provenance: answer.provenance ?? null,
    };
  };
  const volume = (keywords: string[]) =>
    orFailed<VolumeResult>(
      async () => ({
        outcome: 'served',
        answer: expectKind(await fetch({ kind: 'searchVolume', keywords, geo, language }), 'searchVolume'),
      }),
      (reason, error) => ({ outcome: error.notAvailable ? 'not_available' : 'failed', reason }),
    );
  // One explore of the series alone: replay leaves out what it has no recording of, instead of failing.
  const modifiers = async (keyword: string, own: readonly string[] = []): Promise<ModifierResult> => {
    const request = modifierRequest(keyword, own);
    if (!request)
      return {
        request,
        outcome: 'not_asked',
        reason: `"${keyword}" leaves no room for a modifier within Google's ${MAX_ITEM_CHARS} characters per comparison item`,
      };
    return orFailed<ModifierResult>(
      async () => {
        const answer = expectKind(
          await fetch({ kind: 'explore', keywords: request.keywords, timeframe: '12m', geo, parts: ['series'] }),
          'explore',
        );
        const missing = answer.missing?.series;
        if (missing !== undefined) return { request, outcome: 'not_recorded', reason: missing };
        const series = part(answer, 'series');
        return { request, outcome: series.outcome === 'no_data' ? 'no_data' : 'served', answer: series };
      },
      (reason, error) => ({ request, outcome: error.notAvailable ? 'not_available' : 'failed', reason }),
    );
  };

  if (name === 'single') {
    return {
      name,
      autocomplete: (phrases) =>
        withAutocomplete(phrases, async () => {
          const answers = await Promise.all(phrases.map(autocompleteOne));
          return { topics: Object.fromEntries(phrases.map((p, i) => [p, answers[i]!])), not_asked: [] };
        }),
      volume,
      measure,
      series: async (keyword, timeframe) => ({ answer: await interest([keyword], timeframe) }),
      async comparison(primary, secondary, anchor) {
        const keywords = [primary, ...secondary.slice(0, 4)];
        const secondaryAnswer = secondary.length > 0 ? await interest(keywords, '30d') : undefined;
        const anchorAnswer = await againstAnchor([primary], anchor);
        return {
          secondary: {
            keywords,
            timeframe: '30d',
            means: Object.fromEntries(keywords.map((k, i) => [k, secondaryAnswer ? round(mean(secondaryAnswer, i), 1) : 0])),
          },
          anchor: {
            phraseMean: round(mean(anchorAnswer, 0), 2),
            anchorMean: round(mean(anchorAnswer, 1), 2),
            points: anchorAnswer.points.length,
            provenance: anchorAnswer.provenance ?? null,
          },
        };
      },
      related: (keyword, kind) => relatedList(keyword, kind),
      modifiers,
      map: async (keywords, resolution) =>
        geo
          ? marketMap(keywords, resolution)
          : expectKind(await fetch({ kind: 'interestByRegion', keywords, timeframe: '12m', geo: '', resolution }), 'interestByRegion'),
    };
  }

  const comparison = async (primary: string, secondary: string[], anchor: string) => {
    // One request: the primary, up to three secondary phrases and the anchor (Google takes five terms),
    // in the order step choose_primary measured them, so that this is the request step choose_primary asked (one trends job).
    const measured = run?.measured() ?? [];
    const at = (p: string) => (measured.includes(p) ? measured.indexOf(p) : measured.length);
    const terms = [primary, ...secondary.filter((s) => s !== anchor && s !== primary).slice(0, 3)].sort((a, b) => at(a) - at(b));
    const keywords = [...terms, anchor];
    const index = terms.indexOf(primary);
    const answer = await againstAnchor(terms, anchor);
    // A secondary phrase far more popular than both leaves the primary and the anchor a few coarse
    // integers: then (and only then) the two are asked on their own, as demand needs them precise.
    const pairPeak = Math.max(0, ...answer.points.flatMap((p) => [p.values[index] ?? 0, p.values[keywords.length - 1] ?? 0]));
    // One scale across requests keeps every term's precision: no pair to ask.
    if (keywords.length > 2 && pairPeak < PAIR_PEAK_FLOOR && !run?.scale)
      return { keywords, index, answer, pair: await interest([primary, anchor], '12m') };
    return { keywords, index, answer, pair: undefined };
  };
  // Steps interest_by_country and interest_by_city read the phrase's own maps unless it is comparable to the anchor; then the two together.
  const ownMapsRead = async (keyword: string) => {
    if (geo !== '' || !run) return false;
    // One scale across requests: the maps are the phrase's own, never drawn against an anchor.
    if (run.scale) return true;
    const { keywords, index, answer, pair } = await comparison(keyword, run.secondary(), run.anchor);
    const [phraseMean, anchorMean] = pair ? pairMeans(pair, 0, 1) : pairMeans(answer, index, keywords.length - 1);
    return !mapAgainstAnchor(round(phraseMean, 2), round(anchorMean, 2));
  };
  // `shared`: one explore of the phrase over 12 months answers both related lists and, when they are read, its
  // own maps (its widgets' tokens come in one answer); `batched` asked an explore for each list and one for the maps.
  const sharing = name === 'shared';
  const phraseExplore = async (keyword: string) => {
    const parts: ExplorePart[] = (await ownMapsRead(keyword)) ? [...MAP_PARTS, ...RELATED_PARTS] : [...RELATED_PARTS];
    return expectKind(await fetch({ kind: 'explore', keywords: [keyword], timeframe: '12m', geo, parts }), 'explore');
  };
  const ownMaps = async (keyword: string) =>
    sharing
      ? phraseExplore(keyword)
      : expectKind(await fetch({ kind: 'explore', keywords: [keyword], timeframe: '12m', geo, parts: [...MAP_PARTS] }), 'explore');
  const sharedRelated = (keyword: string, kind: 'relatedQueries' | 'relatedTopics') =>
    orFailed<RelatedResult>(
      async () => served(expectKind(part(await phraseExplore(keyword), kind), kind)),
      (reason, error) => ({
        served: error.notRecorded ? 'not_recorded' : error.notAvailable ? 'not_available' : 'failed',
        list: null,
        reason,
      }),
    );
  return {
    name,
    autocomplete: (phrases, hinted) =>
      withAutocomplete(phrases, async () => {
        const topics: Record<string, Topic[]> = {};
        // Step choose_primary takes the hint, or else the first phrase that is a topic: the phrases after it cannot be chosen.
        for (const [i, phrase] of phrases.entries()) {
          topics[phrase] = await autocompleteOne(phrase);
          if (hinted || topics[phrase]!.length > 0) return { topics, not_asked: phrases.slice(i + 1) };
        }
        return { topics, not_asked: [] };
      }),
    volume,
    measure,
    async series(keyword, timeframe) {
      // The window a 30-day request covers: today and the 30 days before it (31 daily points).
      if (timeframe === '30d')
        return {
          answer: lastDaysRescaled(await interest([keyword], '90d'), 31, 2),
          derived_from: 'the last 30 days of the 90-day answer, rescaled by their own maximum',
        };
      if (timeframe === '12m')
        return {
          answer: lastDaysRescaled(await interest([keyword], '5y'), 53, 2),
          derived_from: 'the last 53 weeks of the 5-year answer, rescaled by their own maximum',
        };
      return { answer: await interest([keyword], timeframe) };
    },
    async comparison(primary, secondary, anchor) {
      const { keywords, index, answer, pair } = await comparison(primary, secondary, anchor);
      const last = keywords.length - 1;
      return {
        secondary: {
          keywords: keywords.slice(0, last),
          timeframe: '12m',
          means: Object.fromEntries(keywords.slice(0, last).map((k, i) => [k, round(mean(answer, i), 1)])),
        },
        anchor: (() => {
          const [phraseMean, anchorMean] = pair ? pairMeans(pair, 0, 1) : pairMeans(answer, index, last);
          const source = pair ?? answer;
          return {
            phraseMean: round(phraseMean, 2),
            anchorMean: round(anchorMean, 2),
            points: source.points.length,
            provenance: source.provenance ?? null,
            ...(pair ? { asked_as_pair: true } : {}),
          };
        })(),
      };
    },
    related: (keyword, kind) => (sharing ? sharedRelated(keyword, kind) : relatedList(keyword, kind)),
    modifiers,
    async map(keywords, resolution) {
      // A worldwide run's maps are of countries and cities; a market's, of its regions and cities.
      if (geo) return marketMap(keywords, resolution);
      if (keywords.length === 1 && (await ownMapsRead(keywords[0]!)))
        return part(await ownMaps(keywords[0]!), resolution === 'COUNTRY' ? 'mapCountry' : 'mapCity');
      const answer = expectKind(
        await fetch({ kind: 'explore', keywords, timeframe: '12m', geo: '', parts: ['mapCountry', 'mapCity'] }),
        'explore',
      );
      return part(answer, resolution === 'COUNTRY' ? 'mapCountry' : 'mapCity');
    },
  };
}
