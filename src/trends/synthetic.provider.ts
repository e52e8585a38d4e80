// Deterministic generated data for load tests and benchmarks only. Never the
// default; every insight researched with it has source "synthetic".
import { createHash } from 'node:crypto';
import { explorePartByPart } from './explore-parts.js';
import type { Timeframe, TrendsProvider, TrendsRequest, TrendsResponse } from './types.js';

const POINTS: Record<Timeframe, { count: number; stepDays: number }> = {
  '30d': { count: 30, stepDays: 1 },
  '90d': { count: 90, stepDays: 1 },
  '12m': { count: 52, stepDays: 7 },
  '5y': { count: 260, stepDays: 7 },
};
const SUFFIXES = ['app', 'price', 'best', 'how to', 'alternative to', 'vs', 'not working', 'free', 'software', 'near me', 'review', 'fix'];
const COUNTRIES: Array<[string, string]> = [
  ['US', 'United States'], ['GB', 'United Kingdom'], ['IN', 'India'], ['CA', 'Canada'], ['AU', 'Australia'],
  ['DE', 'Germany'], ['FR', 'France'], ['BR', 'Brazil'], ['NG', 'Nigeria'], ['JP', 'Japan'],
];

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
      return explorePartByPart(request, (part) => new SyntheticTrendsProvider(this.today).fetch(part));
    }
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    const provenance = { provider: 'synthetic' as const };
    switch (request.kind) {
      case 'interestOverTime': {
        const { count, stepDays } = POINTS[request.timeframe];
        const end = Date.UTC(this.today().getUTCFullYear(), this.today().getUTCMonth(), this.today().getUTCDate());
        const shapes = request.keywords.map((k) => {
          const r = rng(`${k}|shape`);
          return { level: 20 + r() * 60, slope: (r() - 0.4) * 0.02, weekly: r() * 0.3, noise: rng(`${k}|${request.timeframe}`) };
        });
        const raw = Array.from({ length: count }, (_, i) =>
          shapes.map((s) => Math.max(0, s.level * (1 + s.slope * i * stepDays) * (1 + s.weekly * Math.sin((2 * Math.PI * i * stepDays) / 7)) * (0.85 + 0.3 * s.noise()))),
        );
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
      case 'relatedQueries':
      case 'relatedTopics': {
        const r = rng(`${request.keyword}|${request.kind}`);
        const picks = SUFFIXES.filter(() => r() < 0.6);
        const item = (suffix: string, value: number) => ({
          label: request.kind === 'relatedQueries' ? `${request.keyword} ${suffix}` : `${request.keyword} (${suffix})`,
          ...(request.kind === 'relatedTopics' ? { topic: { mid: `/g/synthetic${suffix.replace(/\W/g, '')}`, type: 'Topic' } } : {}),
          value,
          breakout: false,
          formattedValue: String(value),
        });
        return {
          kind: request.kind,
          provenance,
          top: picks.map((s, i) => item(s, Math.max(1, 100 - i * 9))),
          rising: picks.slice(0, 4).map((s, i) => ({ ...item(s, 50 + Math.round(r() * 400)), breakout: i === 0 && r() < 0.3 })),
        };
      }
      case 'interestByRegion': {
        // Like Google: one keyword is scaled so the strongest place is 100; several are shares summing to 100 in each place.
        const levels = COUNTRIES.map(() => request.keywords.map(() => 0));
        request.keywords.forEach((keyword, k) => {
          const r = rng(`${keyword}|${request.resolution}|${request.geo}`);
          COUNTRIES.forEach((_, i) => (levels[i]![k] = i === 0 ? 1 : 0.05 + r() * 0.75));
        });
        const max = Math.max(...levels.map((l) => l[0]!));
        return {
          kind: 'interestByRegion',
          keywords: request.keywords,
          provenance,
          regions: COUNTRIES.map(([geoCode, geoName], i) => {
            const total = levels[i]!.reduce((a, b) => a + b, 0);
            return {
              geoCode: request.resolution === 'COUNTRY' ? geoCode : request.resolution === 'REGION' ? `${request.geo}-${i}` : '',
              geoName: request.resolution === 'CITY' ? `${geoName} city` : geoName,
              values: levels[i]!.map((v) => Math.round(request.keywords.length === 1 ? (v / max) * 100 : (v / total) * 100)),
              hasData: levels[i]!.map(() => true),
            };
          }),
        };
      }
      case 'autocomplete':
        return { kind: 'autocomplete', provenance, topics: [{ mid: `/g/synthetic${request.term.length}`, title: request.term, type: 'Topic' }] };
      case 'dailyTrends': {
        const r = rng(`${request.geo}|${request.date}`);
        return {
          kind: 'dailyTrends',
          provenance,
          searches: Array.from({ length: 10 }, (_, i) => ({ query: `synthetic trend ${Math.floor(r() * 1000)} ${i}`, traffic: '10K+', date: request.date })),
        };
      }
    }
  }
}
