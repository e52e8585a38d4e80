// The simulated world the loopback Google answers from. Each keyword's true
// daily search volume is a real Google Trends series (../shared/data/
// trends-series, 466 real daily series) chosen by a hash of the keyword, times
// a popularity chosen by the same hash (log-uniform over four orders of
// magnitude). Every answer is computed as Google computes it: the volumes of
// all the request's keywords over its window, normalised together so the
// largest point is 100, rounded to integers; weekly windows sum the days.
// Each request carries sampling noise (±2%) seeded by what it asks, so two
// different requests for one keyword differ a little, while the same request
// asked again gets the same answer (as Google's answers mostly do: in the real
// batches of ../shared/data/trends-batches most repeated requests agree exactly).
//
// As Google does today: a keyword written with Google's OR syntax, "a + b + c",
// is searched as any of its terms (its volume is the sum of theirs; Trends'
// help, "Refine Trends results by topic"); a keyword with too little data
// (below a popularity floor, or named in `noData`) comes back as zeros with
// hasData false; and the trending searches of a country are a feed of items
// with an approximate traffic and the news that links them.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../src/config.js';
import { readSeriesCsv } from '../../../src/demo/demo-seed.js';

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
  ['US', 'United States'], ['GB', 'United Kingdom'], ['IN', 'India'], ['CA', 'Canada'], ['AU', 'Australia'], ['DE', 'Germany'],
  ['FR', 'France'], ['BR', 'Brazil'], ['NG', 'Nigeria'], ['JP', 'Japan'], ['MX', 'Mexico'], ['ES', 'Spain'], ['IT', 'Italy'],
  ['NL', 'Netherlands'], ['SE', 'Sweden'], ['ZA', 'South Africa'], ['PH', 'Philippines'], ['ID', 'Indonesia'], ['KE', 'Kenya'],
  ['PL', 'Poland'], ['AR', 'Argentina'], ['SG', 'Singapore'], ['IE', 'Ireland'], ['NZ', 'New Zealand'], ['PK', 'Pakistan'],
];
const CITIES = ['New York', 'London', 'Mumbai', 'Toronto', 'Sydney', 'Berlin', 'Paris', 'São Paulo', 'Lagos', 'Tokyo', 'Mexico City',
  'Madrid', 'Milan', 'Amsterdam', 'Stockholm', 'Cape Town', 'Manila', 'Jakarta', 'Nairobi', 'Warsaw', 'Buenos Aires', 'Singapore',
  'Dublin', 'Auckland', 'Karachi', 'Chicago', 'Los Angeles', 'Houston', 'Bangalore', 'Melbourne'];
const QUERY_SUFFIXES = ['app', 'price', 'best', 'how to', 'alternative to', 'vs', 'not working', 'free', 'software', 'near me', 'review', 'fix', 'for beginners', 'online', 'ideas'];

export interface WorldOptions {
  /** Folder of gtab-us-daily.csv. */
  seriesDir?: string;
  /** The day answers end on (today by default). */
  today?: () => Date;
  /** Keywords below this popularity (1 to 10,000) have too little data: zeros with hasData false. Default 1.5 (about 4 % of keywords). */
  noDataBelow?: number;
  /** Keywords with too little data whatever their popularity (tests name them). */
  noData?: string[];
}

/** The terms of a keyword written with Google's OR syntax ("a + b + c"); one term for any other keyword. */
export function orTerms(keyword: string): string[] {
  const terms = keyword.split(/\s*\+\s*/).map((t) => t.trim()).filter(Boolean);
  return terms.length > 1 ? terms : [keyword];
}

export class SimulatedWorld {
  private readonly noData: Set<string>;
  private readonly noDataBelow: number;

  private constructor(
    private readonly series: number[][],
    private readonly today: () => Date,
    options: WorldOptions,
  ) {
    this.noData = new Set((options.noData ?? []).map((k) => k.toLowerCase()));
    this.noDataBelow = options.noDataBelow ?? 1.5;
  }

  static async load(options: WorldOptions = {}): Promise<SimulatedWorld> {
    // The 466 series beside a checkout where they are; on a clone, the repository's 48 (data/trends-series).
    const dir = options.seriesDir ?? [path.resolve(PROJECT_ROOT, '../shared/data/trends-series'), path.join(PROJECT_ROOT, 'data/trends-series')].find((d) => existsSync(path.join(d, 'gtab-us-daily.csv'))) ?? path.join(PROJECT_ROOT, 'data/trends-series');
    const all = await readSeriesCsv(dir);
    const series = [...all.keys()].sort().map((id) => all.get(id)!.map((p) => p.value));
    if (series.length === 0) throw new Error(`no series in ${dir}`);
    return new SimulatedWorld(series, options.today ?? (() => new Date()), options);
  }

  /** How popular a keyword is, relative to others: 1 to 10,000, log-uniform by its hash. */
  popularity(keyword: string): number {
    return 10 ** (4 * (hash(`${keyword.toLowerCase()}|popularity`) / 2 ** 32));
  }

  /** Google has too little data for this keyword (for an OR of terms: for every one of them). */
  hasData(keyword: string): boolean {
    return orTerms(keyword).some((t) => !this.noData.has(t.toLowerCase()) && this.popularity(t) >= this.noDataBelow);
  }

  /** The keyword's true daily volume `daysAgo` days before today (a real series, tiled backwards past its start); an OR of terms sums them. */
  volume(keyword: string, daysAgo: number): number {
    const terms = orTerms(keyword);
    if (terms.length > 1) return terms.reduce((sum, t) => sum + this.volume(t, daysAgo), 0);
    if (!this.hasData(keyword)) return 0;
    const s = this.series[hash(keyword.toLowerCase()) % this.series.length]!;
    const i = s.length - 1 - (daysAgo % s.length);
    return s[i]! * this.popularity(keyword);
  }

  /**
   * Interest over time as Google answers it: one row per day (windows up to 270
   * days) or per week, every keyword normalised together, integers 0–100.
   */
  timeline(keywords: string[], start: string, end: string, requestSeed: string, options: { noise?: boolean } = {}) {
    const today = Date.parse(this.today().toISOString().slice(0, 10));
    const from = Date.parse(start);
    const to = Math.min(Date.parse(end), today);
    const days = Math.max(1, Math.round((to - from) / DAY_MS) + 1);
    const step = days > 270 ? 7 : 1;
    const noise = rng(`noise|${requestSeed}`);
    const rows: Array<{ time: number; raw: number[]; partial: boolean }> = [];
    for (let t = from; t <= to; t += step * DAY_MS) {
      const raw = keywords.map((k) => {
        let sum = 0;
        for (let d = 0; d < step; d += 1) {
          const daysAgo = Math.round((today - (t + d * DAY_MS)) / DAY_MS);
          if (daysAgo >= 0) sum += this.volume(k, daysAgo);
        }
        return options.noise === false ? sum : sum * (0.98 + 0.04 * noise());
      });
      rows.push({ time: t, raw, partial: t + step * DAY_MS > today });
    }
    const max = Math.max(1e-9, ...rows.flatMap((r) => r.raw));
    const hasData = keywords.map((k) => this.hasData(k));
    return rows.map((r) => ({ time: r.time / 1000, values: r.raw.map((v) => Math.round((v / max) * 100)), hasData, partial: r.partial }));
  }

  /** Related queries or topics of one keyword: top (relative to the first) and rising (percent growth, some "Breakout"). */
  related(keyword: string, kind: 'QUERY' | 'ENTITY') {
    const r = rng(`${keyword.toLowerCase()}|related|${kind}`);
    const picks = QUERY_SUFFIXES.filter(() => r() < 0.55);
    const label = (suffix: string) => (kind === 'QUERY' ? `${keyword} ${suffix}` : `${keyword} ${suffix}`.replace(/\b\w/g, (c) => c.toUpperCase()));
    const item = (suffix: string, value: number, formatted: string) => ({
      ...(kind === 'QUERY' ? { query: label(suffix) } : { topic: { mid: `/g/11${hash(`${keyword}|${suffix}`).toString(36)}`, title: label(suffix), type: 'Topic' } }),
      value,
      formattedValue: formatted,
      hasData: true,
      link: `/trends/explore?q=${encodeURIComponent(label(suffix))}`,
    });
    const top = picks.map((s, i) => item(s, Math.max(1, 100 - i * 8 - Math.floor(r() * 5)), ''));
    const rising = picks.slice(0, 5).map((s, i) => {
      const breakout = i === 0 && r() < 0.35;
      const growth = breakout ? 5000 : 40 + Math.round(r() * 800);
      return item(s, growth, breakout ? 'Breakout' : `+${growth.toLocaleString('en-US')}%`);
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
    const topics = ['meal kit delivery', 'standing desk', 'home espresso', 'budget travel', 'language learning', 'pet insurance', 'solar panels', 'sleep tracking',
      'sourdough starter', 'remote hiring', 'electric bikes', 'indoor plants', 'tiny homes', 'noise cancelling', 'meal prep', 'dog training', 'home gym',
      'coffee subscription', 'fountain pens', 'air purifiers'];
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
