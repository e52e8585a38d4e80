// The simulated world the loopback Google answers from. Each keyword's true
// daily search volume is a real Google Trends series (../shared/data/
// trends-series, 466 real daily series) chosen by a hash of the keyword, times
// a popularity chosen by the same hash (log-uniform over four orders of
// magnitude). Every answer is computed as Google computes it: the volumes of
// all the request's keywords over its window, normalised together so the
// largest point is 100, rounded to integers; weekly windows sum the days.
//
// Google's numbers come from a sample of searches (Trends help, "Where Trends
// data comes from"), so each comparison item of a request is a count drawn from
// that sample: Poisson noise seeded by what the request asks, so two different
// requests for one keyword differ a little, while the same request asked again
// gets the same answer (as Google's answers mostly do: in the real batches of
// ../shared/data/trends-batches most repeated requests agree exactly). A common
// phrase is drawn thousands of times a day (noise of a percent or two). A
// thinly sampled one (`thinSample`: the noisy low-volume scenario) is drawn as
// a few searchers, each counted with all of their searches, and each item of a
// request from a sample of its own (Google's numbers for a rare term change
// from request to request: Trends help, "Why data may differ"): unbiased, but
// so noisy that the items of one request need not keep the relations their
// true volumes keep, an OR-group of the phrase's refinements above the phrase
// itself among them.
//
// As Google does today: a keyword written with Google's OR syntax, "a + b + c",
// is searched as any of its terms (its volume is the sum of theirs; Trends'
// help, "Refine Trends results by topic"); a term that is a phrase with a word
// people add to it ("solar generator how to") is a part of the phrase's
// searches, never more than all of them; a keyword with too little data (below
// a popularity floor, or named in `noData`) comes back as zeros with hasData
// false; and the trending searches of a country are a feed of items with an
// approximate traffic and the news that links them.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../src/config.js';
import { readSeriesCsv } from '../../../src/demo/demo-seed.js';
import { MODIFIER_FAMILIES } from '../../../src/domain/research/modifier-evidence.js';

const DAY_MS = 86_400_000;

function hash(text: string): number {
  return createHash('sha1').update(text).digest().readUInt32LE(0);
}

/** A seeded PRNG (mulberry32). */
function rng(seedText: string): () => number {
  let seed = hash(seedText);
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COUNTRIES: Array<[string, string]> = [
  ['US', 'United States'],
  ['GB', 'United Kingdom'],
  ['IN', 'India'],
  ['CA', 'Canada'],
  ['AU', 'Australia'],
  ['DE', 'Germany'],
  ['FR', 'France'],
  ['BR', 'Brazil'],
  ['NG', 'Nigeria'],
  ['JP', 'Japan'],
  ['MX', 'Mexico'],
  ['ES', 'Spain'],
  ['IT', 'Italy'],
  ['NL', 'Netherlands'],
  ['SE', 'Sweden'],
  ['ZA', 'South Africa'],
  ['PH', 'Philippines'],
  ['ID', 'Indonesia'],
  ['KE', 'Kenya'],
  ['PL', 'Poland'],
  ['AR', 'Argentina'],
  ['SG', 'Singapore'],
  ['IE', 'Ireland'],
  ['NZ', 'New Zealand'],
  ['PK', 'Pakistan'],
];
const CITIES = [
  'New York',
  'London',
  'Mumbai',
  'Toronto',
  'Sydney',
  'Berlin',
  'Paris',
  'São Paulo',
  'Lagos',
  'Tokyo',
  'Mexico City',
  'Madrid',
  'Milan',
  'Amsterdam',
  'Stockholm',
  'Cape Town',
  'Manila',
  'Jakarta',
  'Nairobi',
  'Warsaw',
  'Buenos Aires',
  'Singapore',
  'Dublin',
  'Auckland',
  'Karachi',
  'Chicago',
  'Los Angeles',
  'Houston',
  'Bangalore',
  'Melbourne',
];
const QUERY_SUFFIXES = [
  'app',
  'price',
  'best',
  'how to',
  'alternative to',
  'vs',
  'not working',
  'free',
  'software',
  'near me',
  'review',
  'fix',
  'for beginners',
  'online',
  'ideas',
];
/**
 * Words people add to a phrase. A term made of a phrase and one of these is a
 * part of the phrase's searches (the research's modifier words are among them,
 * so its OR-groups are measured against a world that keeps the relation).
 */
const REFINING_WORDS = [...new Set([...Object.values(MODIFIER_FAMILIES).flat(), ...QUERY_SUFFIXES])].sort((a, b) => b.length - a.length);
/** A refinement's share of its phrase's searches: log-uniform between these (a family of nine stays under 0.4). */
const REFINEMENT_SHARE = { min: 0.001, max: 0.04 } as const;
/**
 * Searches drawn from the sample per unit of volume (volume = the series' 0–100
 * times popularity): a phrase of middling popularity is drawn a few thousand
 * times a day, a refinement of it a few dozen.
 */
const SAMPLE_PER_VOLUME = 1;
/** The tail of a thinly sampled searcher's burst of searches (Pareto's α: the smaller, the heavier). */
const BURST_ALPHA = 1.2;
/** A refinement holding at least this share of its phrase's searches is listed among its related queries. */
const RELATED_LIST_MIN_SHARE = 0.005;

export interface WorldOptions {
  /** Folder of gtab-us-daily.csv. */
  seriesDir?: string;
  /** The day answers end on (today by default). */
  today?: () => Date;
  /** Keywords below this popularity (1 to 10,000) have too little data: zeros with hasData false. Default 1.5 (about 4 % of keywords). */
  noDataBelow?: number;
  /** Keywords with too little data whatever their popularity (tests name them). */
  noData?: string[];
  /**
   * Phrases Google samples so thinly that its items need not keep their true
   * relations (the noisy low-volume scenario): about how many searchers of the
   * phrase Google's sample holds in a year (e.g. 6); its refinements are drawn
   * from as thin a sample.
   */
  thinSample?: Record<string, number>;
}

/** The terms of a keyword written with Google's OR syntax ("a + b + c"); one term for any other keyword. */
export function orTerms(keyword: string): string[] {
  const terms = keyword
    .split(/\s*\+\s*/)
    .map((t) => t.trim())
    .filter(Boolean);
  return terms.length > 1 ? terms : [keyword];
}

/** A term made of a phrase and a refining word: the phrase and the word; null for any other term. */
export function refinementOf(term: string): { phrase: string; word: string } | null {
  const t = term.trim().toLowerCase().replace(/\s+/g, ' ');
  for (const word of REFINING_WORDS) {
    if (t.endsWith(` ${word}`) && t.length > word.length + 1) return { phrase: t.slice(0, -word.length - 1), word };
  }
  return null;
}

/** A Poisson draw (Knuth's method for small means, the normal approximation above 50). */
function poisson(mean: number, random: () => number): number {
  if (mean <= 0) return 0;
  if (mean > 50) {
    const u = Math.max(1e-12, random());
    const gauss = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * gauss));
  }
  const limit = Math.exp(-mean);
  let k = 0;
  let p = random();
  while (p > limit) {
    k += 1;
    p *= random();
  }
  return k;
}

export class SimulatedWorld {
  private readonly noData: Set<string>;
  private readonly noDataBelow: number;
  private readonly thin: Map<string, number>;

  private constructor(
    private readonly series: number[][],
    private readonly today: () => Date,
    options: WorldOptions,
  ) {
    this.noData = new Set((options.noData ?? []).map((k) => k.toLowerCase()));
    this.noDataBelow = options.noDataBelow ?? 1.5;
    this.thin = new Map(Object.entries(options.thinSample ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  }

  static async load(options: WorldOptions = {}): Promise<SimulatedWorld> {
    // The 466 series beside a checkout where they are; on a clone, the repository's 48 (data/trends-series).
    const dir =
      options.seriesDir ??
      [path.resolve(PROJECT_ROOT, '../shared/data/trends-series'), path.join(PROJECT_ROOT, 'data/trends-series')].find((d) =>
        existsSync(path.join(d, 'gtab-us-daily.csv')),
      ) ??
      path.join(PROJECT_ROOT, 'data/trends-series');
    const all = await readSeriesCsv(dir);
    const series = [...all.keys()].sort().map((id) => all.get(id)!.map((p) => p.value));
    if (series.length === 0) throw new Error(`no series in ${dir}`);
    return new SimulatedWorld(series, options.today ?? (() => new Date()), options);
  }

  /** How popular a keyword is, relative to others: 1 to 10,000, log-uniform by its hash. */
  popularity(keyword: string): number {
    return 10 ** (4 * (hash(`${keyword.toLowerCase()}|popularity`) / 2 ** 32));
  }

  /** Google has too little data for this keyword (for an OR of terms: for every one of them; a refinement: when its phrase has none). */
  hasData(keyword: string): boolean {
    return orTerms(keyword).some((t) => {
      const refined = refinementOf(t);
      if (refined) return !this.noData.has(t.toLowerCase()) && this.hasData(refined.phrase);
      return !this.noData.has(t.toLowerCase()) && this.popularity(t) >= this.noDataBelow;
    });
  }

  /** A refinement's true share of its phrase's searches (log-uniform by a hash of the two). */
  refinementShare(phrase: string, word: string): number {
    const u = hash(`${phrase.toLowerCase()}|${word}|share`) / 2 ** 32;
    return Math.exp(Math.log(REFINEMENT_SHARE.min) + u * Math.log(REFINEMENT_SHARE.max / REFINEMENT_SHARE.min));
  }

  /**
   * The true share of a phrase's searches an OR-group of its refinements holds
   * ("pizza how to + pizza fix"): the sum of its terms' shares, which is what a
   * comparison of the two implies without sampling noise or rounding.
   */
  orGroupShare(phrase: string, group: string): number {
    return orTerms(group).reduce((sum, t) => {
      const refined = refinementOf(t);
      return sum + (refined && refined.phrase === phrase.trim().toLowerCase() ? this.refinementShare(refined.phrase, refined.word) : 0);
    }, 0);
  }

  /**
   * The keyword's true daily volume `daysAgo` days before today (a real series,
   * tiled backwards past its start); an OR of terms sums them; a refinement is
   * its share of the phrase's volume, day by day.
   */
  volume(keyword: string, daysAgo: number): number {
    const terms = orTerms(keyword);
    if (terms.length > 1) return terms.reduce((sum, t) => sum + this.volume(t, daysAgo), 0);
    if (!this.hasData(keyword)) return 0;
    const refined = refinementOf(keyword);
    if (refined)
      return (
        this.volume(refined.phrase, daysAgo) *
        (this.thin.has(refined.phrase) ? this.thinLevel(refined.phrase, refined.word) : this.refinementShare(refined.phrase, refined.word))
      );
    const s = this.series[hash(keyword.toLowerCase()) % this.series.length]!;
    const i = s.length - 1 - (daysAgo % s.length);
    return s[i]! * this.popularity(keyword);
  }

  /**
   * What Google's thin sample makes of a refinement of a thinly sampled phrase:
   * a level drawn from a handful of searchers of its own, unrelated to its true
   * share (log-uniform from a twentieth of the phrase to three times it). This
   * is the scenario's point: Google's numbers for rare terms need not keep the
   * relations their searches keep.
   */
  thinLevel(phrase: string, word: string): number {
    const u = hash(`${phrase.toLowerCase()}|${word}|thin`) / 2 ** 32;
    return Math.exp(Math.log(0.05) + u * Math.log(3 / 0.05));
  }

  /**
   * The share of a keyword's searches Google's sample draws as searchers: 1
   * (every search), or, for a thinly sampled phrase and its refinements, its
   * searchers a year over the phrase's searches a year.
   */
  private sampleFactor(keyword: string): number {
    const term = orTerms(keyword)[0]!.toLowerCase();
    const phrase = this.thin.has(term) ? term : (refinementOf(term)?.phrase ?? '');
    const searchers = this.thin.get(phrase);
    if (searchers === undefined) return 1;
    let year = 0;
    for (let d = 0; d < 365; d += 1) year += this.volume(phrase, d);
    return year > 0 ? Math.min(1, searchers / year) : 1;
  }

  /**
   * Interest over time as Google answers it: one row per day (windows up to 270
   * days) or per week, every keyword normalised together, integers 0–100. Each
   * item's count in a row is drawn from Google's sample (Poisson), unless
   * `noise: false` asks for the truth.
   */
  timeline(keywords: string[], start: string, end: string, requestSeed: string, options: { noise?: boolean } = {}) {
    const today = Date.parse(this.today().toISOString().slice(0, 10));
    const from = Date.parse(start);
    const to = Math.min(Date.parse(end), today);
    const days = Math.max(1, Math.round((to - from) / DAY_MS) + 1);
    const step = days > 270 ? 7 : 1;
    const noise = rng(`noise|${requestSeed}`);
    const thin = keywords.map((k) => this.sampleFactor(k));
    const rows: Array<{ time: number; raw: number[]; partial: boolean }> = [];
    for (let t = from; t <= to; t += step * DAY_MS) {
      const raw = keywords.map((k, i) => {
        let sum = 0;
        for (let d = 0; d < step; d += 1) {
          const daysAgo = Math.round((today - (t + d * DAY_MS)) / DAY_MS);
          if (daysAgo >= 0) sum += this.volume(k, daysAgo);
        }
        if (options.noise === false) return sum;
        const f = thin[i]!;
        if (f >= 1) return poisson(sum * SAMPLE_PER_VOLUME, noise) / SAMPLE_PER_VOLUME;
        // A thin sample: few searchers (f of the searches' worth), each with a burst of searches, 1/f on
        // average but heavy-tailed (Pareto, α = 1.2): one searcher's burst can outweigh everyone else's.
        let count = 0;
        for (let n = poisson(sum * f, noise); n > 0; n -= 1)
          count += (((BURST_ALPHA - 1) / BURST_ALPHA) * (1 / f)) / Math.pow(1 - noise(), 1 / BURST_ALPHA);
        return count;
      });
      rows.push({ time: t, raw, partial: t + step * DAY_MS > today });
    }
    const max = Math.max(1e-9, ...rows.flatMap((r) => r.raw));
    const hasData = keywords.map((k) => this.hasData(k));
    return rows.map((r) => ({ time: r.time / 1000, values: r.raw.map((v) => Math.round((v / max) * 100)), hasData, partial: r.partial }));
  }

  /**
   * Related queries or topics of one keyword: top (relative to the first) and
   * rising (percent growth, some "Breakout"). Queries are the keyword's
   * refinements people search most, in the order of their true shares, so a
   * list agrees with what a comparison of the refinements measures; a keyword
   * without data, or thinly sampled, has none.
   */
  related(keyword: string, kind: 'QUERY' | 'ENTITY') {
    const r = rng(`${keyword.toLowerCase()}|related|${kind}`);
    const base = keyword.trim().toLowerCase();
    // Google lists nothing related to a term it has too few searches of.
    if (this.thin.has(base) || !this.hasData(base)) return [{ rankedKeyword: [] }, { rankedKeyword: [] }];
    const listed = QUERY_SUFFIXES.concat(REFINING_WORDS.filter((w) => !QUERY_SUFFIXES.includes(w)))
      .map((word) => ({ word, share: this.refinementShare(base, word) }))
      .filter((x) => x.share >= RELATED_LIST_MIN_SHARE)
      .sort((a, b) => b.share - a.share)
      .slice(0, 25);
    const label = (word: string) => (kind === 'QUERY' ? `${base} ${word}` : `${base} ${word}`.replace(/\b\w/g, (c) => c.toUpperCase()));
    const item = (word: string, value: number, formatted: string) => ({
      ...(kind === 'QUERY'
        ? { query: label(word) }
        : { topic: { mid: `/g/11${hash(`${base}|${word}`).toString(36)}`, title: label(word), type: 'Topic' } }),
      value,
      formattedValue: formatted,
      hasData: true,
      link: `/trends/explore?q=${encodeURIComponent(label(word))}`,
    });
    const first = listed[0]?.share ?? 1;
    const top = listed.map((x) => item(x.word, Math.max(1, Math.round((100 * x.share) / first)), ''));
    const rising = listed
      .filter(() => r() < 0.4)
      .slice(0, 5)
      .map((x, i) => {
        const breakout = i === 0 && r() < 0.35;
        const growth = breakout ? 5000 : 40 + Math.round(r() * 800);
        return item(x.word, growth, breakout ? 'Breakout' : `+${growth.toLocaleString('en-US')}%`);
      });
    for (const t of top) t.formattedValue = String(t.value);
    return [{ rankedKeyword: top }, { rankedKeyword: rising }];
  }

  /** Interest by place: one keyword relative to its strongest place (100); several as shares of 100 in each place. */
  geo(keywords: string[], resolution: string) {
    const places = resolution === 'CITY' ? CITIES.map((name) => ['', name] as [string, string]) : COUNTRIES;
    const levels = places.map(([code, name]) =>
      keywords.map((k) => {
        const r = rng(`${k.toLowerCase()}|geo|${code || name}`);
        if (!this.hasData(k)) return 0;
        const popularity = orTerms(k).reduce((sum, t) => sum + (this.hasData(t) ? this.popularity(t) : 0), 0);
        return popularity * (code === 'US' || name === 'New York' ? 1 : 0.02 + r() * 0.9) * (r() < 0.15 ? 0 : 1);
      }),
    );
    const single = keywords.length === 1;
    const max = Math.max(1e-9, ...levels.map((l) => l[0]!));
    return places.map(([geoCode, geoName], i) => {
      const level = levels[i]!;
      const total = level.reduce((a, b) => a + b, 0);
      const value = level.map((v) => (single ? Math.round((v / max) * 100) : total === 0 ? 0 : Math.round((v / total) * 100)));
      return {
        ...(geoCode ? { geoCode } : { coordinates: { lat: 0, lng: 0 } }),
        geoName,
        value,
        formattedValue: value.map(String),
        maxValueIndex: 0,
        hasData: level.map((v) => v > 0),
      };
    });
  }

  /** Autocomplete: most terms are a Google topic; about one in four is not. */
  autocomplete(term: string) {
    if (hash(`${term.toLowerCase()}|known`) % 4 === 0) return [];
    const title = term.replace(/\b\w/g, (c) => c.toUpperCase());
    return [
      { mid: `/m/0${hash(term).toString(36)}`, title, type: 'Topic' },
      { mid: `/g/11${hash(`${term}|2`).toString(36)}`, title: `${title} app`, type: 'Software' },
    ];
  }

  /**
   * The trending searches of a country on a day (the RSS feed's items): twenty
   * searches with Google's approximate traffic buckets, published that day, each
   * with one to three news items.
   */
  trending(geo: string, date: string) {
    const r = rng(`${geo}|${date}|trending`);
    const topics = [
      'meal kit delivery',
      'standing desk',
      'home espresso',
      'budget travel',
      'language learning',
      'pet insurance',
      'solar panels',
      'sleep tracking',
      'sourdough starter',
      'remote hiring',
      'electric bikes',
      'indoor plants',
      'tiny homes',
      'noise cancelling',
      'meal prep',
      'dog training',
      'home gym',
      'coffee subscription',
      'fountain pens',
      'air purifiers',
    ];
    const sources = ['The Daily Ledger', 'Metro Wire', 'Signal News', 'Harbor Times', 'Northern Post'];
    const buckets = ['200+', '500+', '1000+', '2000+', '5000+', '10K+', '20K+', '50K+', '100K+'];
    return topics.map((topic, i) => {
      const query = `${topic} ${Math.floor(r() * 100)}`;
      const hour = String(Math.floor(r() * 24)).padStart(2, '0');
      return {
        query,
        approxTraffic: buckets[Math.floor(r() * buckets.length)]!,
        pubDate: new Date(`${date}T${hour}:00:00Z`).toUTCString().replace('GMT', '+0000'),
        picture: `https://encrypted-tbn0.gstatic.com/images?q=tbn:${hash(query).toString(36)}`,
        news: Array.from({ length: 1 + (i % 3) }, (_, n) => ({
          title: `What to know about ${query}${n > 0 ? ` (${n + 1})` : ''}`,
          url: `https://news.example/${encodeURIComponent(query)}/${n}`,
          source: sources[(i + n) % sources.length]!,
        })),
      };
    });
  }
}
