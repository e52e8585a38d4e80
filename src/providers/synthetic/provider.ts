// Deterministic generated data for the first-run demo, load tests and
// benchmarks. Never the default; every insight researched with it has source
// "synthetic". It answers the way Google answers an automated client today,
// so the demo takes the path production takes: the explore page's related
// lists come back empty (Google's answer since 2024-08-20) while related
// queries asked on their own are listed (Google's embed flow) and related
// topics are not, a comparison item joining terms with " + " is the searches
// for any of them, and a term that adds words to another keyword of the same
// request ("meal planner price" next to "meal planner") is a small part of
// that keyword's searches, as in Google. A related query is such a term too,
// listed when its share is large enough, so the lists and the comparisons of
// one phrase agree.
import { createHash } from 'node:crypto';
import { phraseForm } from '../../domain/research/noun-phrases.js';
import { explorePartByPart } from '../explore-parts.js';
import { SYNTHETIC_CITIES, SYNTHETIC_COUNTRIES, SYNTHETIC_REGIONS, SYNTHETIC_WORLD_CITIES, type Place } from './places.js';
import { NotAvailableError, type TrendsProvider } from '../contract.js';
import type { Timeframe, TrendsRequest, TrendsResponse } from '../../domain/trends/answers.js';

const POINTS: Record<Timeframe, { count: number; stepDays: number }> = {
  '30d': { count: 30, stepDays: 1 },
  '90d': { count: 90, stepDays: 1 },
  '12m': { count: 52, stepDays: 7 },
  '5y': { count: 260, stepDays: 7 },
};
/** Autocomplete topic types: some name a business (topic-signals.ts), none a category word. */
const TOPIC_TYPES = ['Topic', 'Company', 'Software', 'Website', 'Product', 'Organization', 'Mobile app', 'Field of study'];
const TOPIC_SUFFIXES = ['', 'Pro', 'Hub', 'Online', 'Club'];
/** A refinement's share of its keyword's searches: log-uniform between these. */
const REFINEMENT_SHARE = { min: 0.0005, max: 0.03 } as const;
/** Words people add to a phrase, of which the related queries are made (the research's modifier words among them). */
const RELATED_WORDS = [
  'app',
  'price',
  'best',
  'how to',
  'near me',
  'review',
  'free',
  'online',
  'ideas',
  'fix',
  'not working',
  'problem',
  'vs',
  'alternative',
  'cost',
  'buy',
  'software',
  'cheap',
  'help',
  'for beginners',
];
/** A refinement holding at least this share of its phrase's searches is listed among its related queries. */
const RELATED_LIST_MIN_SHARE = 0.004;
/** A term's share of the keyword it narrows (the same for a comparison item and a related query). */
const refinementShare = (term: string) => {
  const r = rng(`${term}|share`);
  return Math.exp(Math.log(REFINEMENT_SHARE.min) + r() * Math.log(REFINEMENT_SHARE.max / REFINEMENT_SHARE.min));
};
const wordsOf = (text: string) => text.toLowerCase().split(/\s+/).filter(Boolean);

/** The requested keyword a term narrows (all its words and more), if any. */
function narrowed(term: string, plain: readonly string[]): number {
  const words = new Set(wordsOf(term));
  return plain.findIndex((k) => {
    const base = wordsOf(k);
    return base.length < words.size && base.every((w) => words.has(w));
  });
}

/** A one-word name's level before its phrase's factor of 0.6-1.6 (its series' scale before a request rescales it). */
const ONE_WORD_LEVEL = 40;
/**
 * The standing of the everyday term research compares every idea with (the
 * anchor, TRENDS_ANCHOR, "weather" by default; docs/providers.md), against a
 * one-word name. The relative demand score reads "as searched as the anchor"
 * as its middle (0.5), so the simulated anchor stands where a plain two-word
 * product name does (0.35 of a one-word name, before the 0.6-1.6 spread):
 * "meal kits" or "dog food" then reads as middling-to-good demand, a one-word
 * name as strong, a three-word phrase as weak and a fragment as unsearched.
 * At 6× a one-word name (until 2026-11-28) every product phrase was a few
 * hundredths of it and every simulated idea read "weak demand 0.03-0.06"
 * (founder review, issue 47; the table in docs/providers.md). Google searches
 * "weather" far more: the simulated world gives up that likeness so that its
 * demand scores spread across the scale the way the scale means them. (The
 * tagger reads "weather" as a verb; the standing keeps it from being read as
 * a fragment.) "bagel", the replay anchor, is an everyday name like any other.
 */
const EVERYDAY_STANDING: Readonly<Record<string, number>> = { weather: 0.25 };

/** How much a phrase's words are searched, by their number: a longer phrase is searched less than its head. */
const BY_LENGTH = [1, 1, 0.35, 0.1, 0.03] as const;
/** How much a phrase is searched, by how it reads (noun-phrases.ts): people type names, seldom fragments. */
const BY_FORM = { name: 1, modified: 0.3, fragment: 0.01 } as const;

/**
 * Levels already worked out, by phrase. The tagger behind phraseForm costs
 * about a millisecond a phrase, and a run asks about the same few phrases in
 * request after request: worked out anew each time, it took 0.3-0.4 ms of
 * every research step's CPU, a fifth of bench:flow's throughput (2026-11-28,
 * docs/benchmarks.md). Bounded: a long-lived worker sees new phrases forever.
 */
const LEVELS = new Map<string, number>();
const LEVELS_KEPT = 10_000;

/**
 * A phrase's level of search in the simulated world (its series' level before
 * a request scales it; about 40 for a one-word name): plausible, so a
 * simulated research picks the phrase a real one would. A phrase of nouns
 * that names a thing ("padel court") is searched more than one that opens with
 * a modifier ("online piano"), and far more than a fragment nobody types
 * ("finds last", "renting camping"); each extra word divides it by more than
 * the factor of 0.6-1.6 per phrase that keeps phrases of one shape apart. Same phrase, same level.
 */
export function syntheticLevel(phrase: string): number {
  const known = LEVELS.get(phrase);
  if (known !== undefined) return known;
  const standing = EVERYDAY_STANDING[phrase.trim().toLowerCase()];
  const words = wordsOf(phrase).length;
  const r = rng(`${phrase.toLowerCase()}|level`);
  const level =
    standing !== undefined
      ? ONE_WORD_LEVEL * standing
      : ONE_WORD_LEVEL * BY_LENGTH[Math.min(BY_LENGTH.length - 1, words)]! * BY_FORM[phraseForm(phrase)] * (0.6 + r());
  if (LEVELS.size >= LEVELS_KEPT) LEVELS.clear();
  LEVELS.set(phrase, level);
  return level;
}

/** The shapes a phrase's interest takes in the simulated world, and how often (they sum to 1). */
export const TIMELINE_SHAPES = { stable: 0.35, rising: 0.25, seasonal: 0.2, falling: 0.2 } as const;
export type TimelineShape = keyof typeof TIMELINE_SHAPES;

/** A phrase's curve: its level `daysBefore` today (on calendar day `day`, ms), before the weekly rhythm and noise. */
export interface Timeline {
  shape: TimelineShape;
  weekly: number;
  at(daysBefore: number, day: number): number;
}

const DAY_MS = 86_400_000;
const YEAR_DAYS = 365.25;

/**
 * The shape of a phrase's interest, deterministic per phrase and varied across
 * phrases as real searches are: most hold level, some rise, some fall, some
 * follow the calendar. Each is one curve that every window samples, made so
 * the readings a run takes of it agree: a rising phrase grows over the years
 * and has stepped up over the last two weeks (momentum reads the last week
 * against the month: trend class "rising"), a falling one declines over the
 * years and has stepped down ("declining"); a seasonal one peaks on the same
 * day each year, strongly enough that the 5 years repeat yearly ("seasonal");
 * a stable one drifts a little. The forecast and the outlook are fitted on
 * these same series, so they follow.
 */
export function timelineOf(phrase: string): Timeline {
  const r = rng(`${phrase.toLowerCase()}|timeline`);
  const level = syntheticLevel(phrase);
  const pick = r();
  let cumulative = 0;
  // The anchor holds level: every idea is measured against it.
  const everyday = EVERYDAY_STANDING[phrase.trim().toLowerCase()] !== undefined;
  const shape = everyday
    ? 'stable'
    : ((Object.keys(TIMELINE_SHAPES) as TimelineShape[]).find((s) => (cumulative += TIMELINE_SHAPES[s]) > pick) ?? 'stable');
  const between = (lo: number, hi: number) => lo + r() * (hi - lo);
  const weekly = r() * 0.3;
  // A change of `size` that happened about 15 days ago, within a day or two, and has held since: the
  // last week stands apart from the month (momentum reads it, the trend class with it), and the two
  // weeks since are level, so the 7-day forecast (a median of the last weeks) holds at the new level
  // instead of reverting to the old one.
  const stepOf = (size: number) => {
    const daysAgo = between(13.5, 15);
    const width = between(0.6, 1);
    return (d: number) => size / (1 + Math.exp((d - daysAgo) / width));
  };
  // Yearly growth: exp(-perYear × years before), so the curve meets its recent level today.
  const years = (daysBefore: number, perYear: number) => Math.exp((-perYear * daysBefore) / YEAR_DAYS);
  switch (shape) {
    case 'rising': {
      const perYear = between(0.1, 0.35);
      const step = stepOf(between(1.1, 1.5));
      return { shape, weekly, at: (d) => level * years(d, perYear) * (1 + step(d)) };
    }
    case 'falling': {
      const perYear = between(-0.3, -0.1);
      const step = stepOf(between(0.4, 0.5));
      return { shape, weekly, at: (d) => level * years(d, perYear) * (1 - step(d)) };
    }
    case 'seasonal': {
      const perYear = between(-0.1, 0.2);
      const amplitude = between(0.45, 0.7);
      // The day of the year it peaks (0 = 1 January): the same every year, whatever the window.
      const peakDay = Math.floor(r() * 365);
      return {
        shape,
        weekly,
        at: (d, day) => {
          const start = Date.UTC(new Date(day).getUTCFullYear(), 0, 1);
          const dayOfYear = (day - start) / DAY_MS;
          return level * years(d, perYear) * (1 + amplitude * Math.cos((2 * Math.PI * (dayOfYear - peakDay)) / YEAR_DAYS));
        },
      };
    }
    default: {
      const perYear = between(-0.08, 0.12);
      return { shape, weekly, at: (d) => level * years(d, perYear) };
    }
  }
}

/** The places a map of the request draws: a market's regions or cities, else the world's countries or cities. */
function placesOf(geo: string, resolution: 'COUNTRY' | 'REGION' | 'CITY'): Place[] {
  const country = geo.slice(0, 2);
  if (resolution === 'CITY') return (geo ? (SYNTHETIC_CITIES[country] ?? []) : SYNTHETIC_WORLD_CITIES).map((name) => ['', name] as const);
  if (!geo) return [...SYNTHETIC_COUNTRIES];
  const regions = SYNTHETIC_REGIONS[country] ?? [];
  // A region's own map (US-CA): that region.
  return geo.length > 2 ? regions.filter(([code]) => code === geo) : [...regions];
}

/** A tiny seeded PRNG (mulberry32): same request, same numbers. */
function rng(seedText: string): () => number {
  let seed = createHash('sha1').update(seedText).digest().readUInt32LE(0);
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class SyntheticTrendsProvider implements TrendsProvider {
  readonly name = 'synthetic' as const;

  constructor(
    private readonly today: () => Date = () => new Date(),
    /** Each answer waits this long, as a real one would (SYNTHETIC_LATENCY_MS). */
    private readonly latencyMs = 0,
  ) {}

  async fetch(request: TrendsRequest): Promise<TrendsResponse> {
    // One explore is one request for Google; here it is one latency too, then its parts.
    if (request.kind === 'explore') {
      if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
      // The explore page's own related widgets answer empty lists to automated clients (since 2024-08-20).
      return explorePartByPart(request, async (part) =>
        part.kind === 'relatedQueries' || part.kind === 'relatedTopics'
          ? { kind: part.kind, provenance: { provider: 'synthetic' as const }, top: [], rising: [], outcome: 'empty' as const }
          : new SyntheticTrendsProvider(this.today).fetch(part),
      );
    }
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    const provenance = { provider: 'synthetic' as const };
    switch (request.kind) {
      case 'interestOverTime': {
        const { count, stepDays } = POINTS[request.timeframe];
        const end = Date.UTC(this.today().getUTCFullYear(), this.today().getUTCMonth(), this.today().getUTCDate());
        const own = (k: string) => {
          // One timeline per phrase, anchored at today: every window (30 days to 5 years) samples
          // the same curve, so each shows the same recent level and the years before rise or fall
          // to it smoothly. (A slope per day from each window's own start once did not: "a fad,
          // -100 %" beside a 30-day mean of 70.) The curve's shape is the phrase's own (timelineOf).
          const t = timelineOf(k);
          const noise = rng(`${k}|${request.timeframe}`);
          return Array.from({ length: count }, (_, i) => {
            const daysBefore = (count - 1 - i) * stepDays;
            const day = end - daysBefore * 86_400_000;
            return Math.max(
              0,
              t.at(daysBefore, day) * (1 + t.weekly * Math.sin((2 * Math.PI * i * stepDays) / 7)) * (0.85 + 0.3 * noise()),
            );
          });
        };
        // Plain keywords have a shape of their own; a term that narrows one of them is a share of it
        // (an OR item's terms, and a lone term that narrows the request's first keyword).
        const first = request.keywords[0] ?? '';
        const plain = request.keywords.filter((k, i) => i === 0 || (!k.includes(' + ') && narrowed(k, [first]) < 0));
        const plainSeries = plain.map(own);
        const termSeries = (term: string) => {
          const base = narrowed(term, plain);
          if (base < 0) return own(term);
          const share = refinementShare(term);
          const noise = rng(`${term}|${request.timeframe}`);
          return plainSeries[base]!.map((v) => v * share * (0.85 + 0.3 * noise()));
        };
        const columns = request.keywords.map((k) => {
          const i = plain.indexOf(k);
          if (i >= 0) return plainSeries[i]!;
          const parts = k
            .split(' + ')
            .map((t) => t.trim())
            .map(termSeries);
          return parts[0]!.map((_, p) => parts.reduce((sum, series) => sum + series[p]!, 0));
        });
        const raw = Array.from({ length: count }, (_, i) => columns.map((c) => c[i]!));
        const max = Math.max(1, ...raw.flat());
        return {
          kind: 'interestOverTime',
          keywords: request.keywords,
          provenance,
          points: raw.map((values, i) => ({
            date: new Date(end - (count - 1 - i) * stepDays * 86_400_000).toISOString().slice(0, 10),
            values: values.map((v) => Math.round((v / max) * 100)),
            hasData: values.map(() => true),
            isPartial: i === count - 1,
          })),
        };
      }
      case 'relatedTopics':
        // What Google's embed flow answers automated clients in 2026: no topics.
        return { kind: request.kind, provenance: { ...provenance, via: 'embed' }, top: [], rising: [], outcome: 'empty' };
      case 'relatedQueries': {
        // As the embed flow lists them: the phrase's most searched refinements, top relative to the first.
        const base = request.keyword.trim().toLowerCase();
        const listed = RELATED_WORDS.map((word) => ({ query: `${base} ${word}`, share: refinementShare(`${base} ${word}`) }))
          .filter((x) => x.share >= RELATED_LIST_MIN_SHARE)
          .sort((a, b) => b.share - a.share);
        if (listed.length === 0)
          return { kind: request.kind, provenance: { ...provenance, via: 'embed' }, top: [], rising: [], outcome: 'empty' };
        const r = rng(`${base}|rising`);
        const top = listed.map((x) => {
          const value = Math.max(1, Math.round((100 * x.share) / listed[0]!.share));
          return { label: x.query, value, breakout: false, formattedValue: String(value) };
        });
        const rising = listed
          .filter(() => r() < 0.4)
          .slice(0, 5)
          .map((x, i) => {
            const breakout = i === 0 && r() < 0.3;
            const growth = breakout ? 5000 : 40 + Math.round(r() * 800);
            return {
              label: x.query,
              value: growth,
              breakout,
              formattedValue: breakout ? 'Breakout' : `+${growth.toLocaleString('en-US')}%`,
            };
          });
        return { kind: request.kind, provenance: { ...provenance, via: 'embed' }, top, rising, outcome: 'served' };
      }
      case 'interestByRegion': {
        // Like Google: one keyword is scaled so the strongest place is 100; several are shares summing to 100 in each place.
        // The places are the market's own: a US run's regions are US states (US-CA California), its cities American.
        const places = placesOf(request.geo, request.resolution);
        const levels = places.map(() => request.keywords.map(() => 0));
        request.keywords.forEach((keyword, k) => {
          const r = rng(`${keyword}|${request.resolution}|${request.geo}`);
          // Worldwide, the United States leads (as for most English phrases); within a market, any region may.
          places.forEach((_, i) => (levels[i]![k] = i === 0 && !request.geo ? 1 : 0.05 + r() * (request.geo ? 0.95 : 0.75)));
        });
        const max = Math.max(0, ...levels.map((l) => l[0]!));
        return {
          kind: 'interestByRegion',
          keywords: request.keywords,
          provenance,
          regions: places.map(([geoCode, geoName], i) => {
            const total = levels[i]!.reduce((a, b) => a + b, 0);
            return {
              geoCode,
              geoName,
              values: levels[i]!.map((v) => Math.round(request.keywords.length === 1 ? (v / max) * 100 : (v / total) * 100)),
              hasData: levels[i]!.map(() => true),
            };
          }),
        };
      }
      case 'autocomplete': {
        // The term itself first (a topic, so step choose_primary can choose it), then up to four more of assorted types.
        const r = rng(`${request.term}|autocomplete`);
        const more = Math.floor(r() * 5);
        return {
          kind: 'autocomplete',
          provenance,
          topics: [
            { mid: `/g/synthetic${request.term.length}`, title: request.term, type: 'Topic' },
            ...Array.from({ length: more }, (_, i) => ({
              mid: `/g/synthetic${request.term.length}x${i}`,
              title: `${request.term} ${TOPIC_SUFFIXES[(i + 1) % TOPIC_SUFFIXES.length]}`.trim(),
              type: TOPIC_TYPES[Math.floor(r() * TOPIC_TYPES.length)]!,
            })),
          ],
        };
      }
      case 'searchVolume':
        throw new NotAvailableError('synthetic', request);
      case 'trendingFeed': {
        // Today's feed for the country: the same ideas all day, as Google's feed changes over a day, not per request.
        const today = this.today().toISOString().slice(0, 10);
        const r = rng(`${request.geo}|${today}|trending`);
        return {
          kind: 'trendingFeed',
          provenance,
          items: Array.from({ length: 10 }, (_, i) => {
            const query = `synthetic trend ${Math.floor(r() * 1000)} ${i}`;
            return {
              query,
              approxTraffic: `${(10 - i) * 100}+`,
              published: new Date(`${today}T0${i % 10}:00:00Z`).toISOString(),
              news: [{ title: `Why "${query}" is trending (simulated)`, source: 'Synthetic News', url: `https://news.example/${i}` }],
            };
          }),
        };
      }
    }
  }
}
