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
import { createHash } from 'node:crypto';
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
}

export class SimulatedWorld {
  private constructor(
    private readonly series: number[][],
    private readonly today: () => Date,
  ) {}

  static async load(options: WorldOptions = {}): Promise<SimulatedWorld> {
    const dir = options.seriesDir ?? path.resolve(PROJECT_ROOT, '../shared/data/trends-series');
    const all = await readSeriesCsv(dir);
    const series = [...all.keys()].sort().map((id) => all.get(id)!.map((p) => p.value));
    if (series.length === 0) throw new Error(`no series in ${dir}`);
    return new SimulatedWorld(series, options.today ?? (() => new Date()));
  }

  /** How popular a keyword is, relative to others: 1 to 10,000, log-uniform by its hash. */
  popularity(keyword: string): number {
    return 10 ** (4 * (hash(`${keyword.toLowerCase()}|popularity`) / 2 ** 32));
  }

  /** The keyword's true daily volume `daysAgo` days before today (a real series, tiled backwards past its start). */
  volume(keyword: string, daysAgo: number): number {
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
    return rows.map((r) => ({ time: r.time / 1000, values: r.raw.map((v) => Math.round((v / max) * 100)), partial: r.partial }));
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
        return this.popularity(k) * (code === 'US' || name === 'New York' ? 1 : 0.02 + r() * 0.9) * (r() < 0.15 ? 0 : 1);
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

  /** Daily trends: ten searches for the day. */
  dailyTrends(geo: string, date: string) {
    const r = rng(`${geo}|${date}|daily`);
    const topics = ['meal kit delivery', 'standing desk', 'home espresso', 'budget travel', 'language learning', 'pet insurance', 'solar panels', 'sleep tracking', 'sourdough starter', 'remote hiring'];
    return topics.map((t, i) => ({ title: { query: `${t} ${Math.floor(r() * 100)}` }, formattedTraffic: `${(10 - i) * 10}K+` }));
  }
}
