// Serves recorded real Google Trends answers (RECORDED_TRENDS_DIR: by default the
// repository's data/google-trends-recorded, what a replay research of "pizza" reads).
// It never invents data: a request with no recording fails with a clear message.
// Recordings have fixed historical windows, so a request is matched on its kind,
// keywords and geo; the answer says which window and date it was recorded for.
import { replay } from './profile.js';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { explorePartByPart } from '../explore-parts.js';
import { parseAutocomplete, parseComparedGeo, parseGuardedJson, parseMultiline, parseRelated } from '../google/format.js';
import { describeRequest, NotAvailableError, NotRecordedError, type TrendsProvider } from '../contract.js';
import type { Timeframe, TrendsRequest, TrendsResponse } from '../../domain/trends/answers.js';

interface Recording {
  kind: TrendsRequest['kind'];
  keywords: string[];
  geo: string;
  /** Interest by region only: COUNTRY, REGION or CITY. */
  resolution?: string;
  timeRange: string;
  recordedAt: string;
  file: string;
}

interface Interaction {
  file: string;
  uri: string;
  query: Record<string, string>;
  status: { code: number };
  date?: string;
}

const WIDGET_KINDS: Array<[RegExp, (req: Record<string, unknown>) => TrendsRequest['kind'] | undefined]> = [
  [/\/widgetdata\/multiline/, () => 'interestOverTime'],
  [/\/widgetdata\/comparedgeo/, () => 'interestByRegion'],
  [/\/widgetdata\/relatedsearches/, (req) => (req.keywordType === 'ENTITY' ? 'relatedTopics' : 'relatedQueries')],
];

function keywordsOf(req: Record<string, unknown>): { keywords: string[]; geo: string; time: string } {
  const restriction = (req.restriction ?? {}) as Record<string, unknown>;
  const complex = (restriction.complexKeywordsRestriction ?? {}) as { keyword?: Array<{ value: string }> };
  if (complex.keyword) {
    const geo = (restriction.geo ?? {}) as { country?: string };
    return { keywords: complex.keyword.map((k) => k.value), geo: geo.country ?? '', time: String(restriction.time ?? '') };
  }
  const items = (req.comparisonItem ?? []) as Array<{
    complexKeywordsRestriction?: { keyword?: Array<{ value: string }> };
    geo?: { country?: string };
    time?: string;
  }>;
  return {
    keywords: items.flatMap((i) => i.complexKeywordsRestriction?.keyword?.map((k) => k.value) ?? []),
    geo: items[0]?.geo?.country ?? '',
    time: String((req.time as string | undefined) ?? items[0]?.time ?? ''),
  };
}

export function indexRecordings(root: string): Recording[] {
  const recordings: Recording[] = [];
  const collection = path.join(root, 'pytrends');
  if (!existsSync(collection)) return recordings;
  for (const cassette of readdirSync(collection)) {
    const indexPath = path.join(collection, cassette, 'index.json');
    if (!existsSync(indexPath)) continue;
    const { interactions } = JSON.parse(readFileSync(indexPath, 'utf8')) as { interactions: Interaction[] };
    for (const interaction of interactions) {
      if (interaction.status.code !== 200) continue;
      const file = path.join(collection, cassette, interaction.file);
      const autocomplete = /\/api\/autocomplete\/([^?]+)/.exec(interaction.uri);
      if (autocomplete) {
        recordings.push({
          kind: 'autocomplete',
          keywords: [decodeURIComponent(autocomplete[1]!)],
          geo: '',
          timeRange: '',
          recordedAt: interaction.date ?? '',
          file,
        });
        continue;
      }
      const widget = WIDGET_KINDS.find(([pattern]) => pattern.test(interaction.uri));
      if (!widget || !interaction.query.req) continue;
      const req = JSON.parse(interaction.query.req) as Record<string, unknown>;
      const kind = widget[1](req);
      if (!kind) continue;
      const { keywords, geo, time } = keywordsOf(req);
      if (keywords.length === 0) continue;
      // A map request names its area and resolution at the top level ("geo": {} is worldwide).
      const map =
        kind === 'interestByRegion'
          ? { geo: String((req.geo as { country?: string } | undefined)?.country ?? geo), resolution: String(req.resolution ?? '') }
          : undefined;
      recordings.push({
        kind,
        keywords,
        geo: map?.geo ?? geo,
        ...(map ? { resolution: map.resolution } : {}),
        timeRange: time,
        recordedAt: interaction.date ?? '',
        file,
      });
    }
  }
  return recordings;
}

/** What replay can research: recorded phrases (lower case) and markets ('' worldwide). */
export interface ReplayCoverage {
  phrases: readonly string[];
  markets: readonly string[];
}

/**
 * The anchor term of replay runs when TRENDS_ANCHOR is not set. The recordings
 * compare "pizza" with "bagel" and nothing else, so "bagel" is the only anchor
 * a recorded idea can be calibrated against (the live default, "weather", was
 * never recorded).
 */
export const RECORDED_ANCHOR = replay.anchor;

export class ReplayTrendsProvider implements TrendsProvider {
  readonly name = 'replay' as const;
  private readonly recordings: Recording[];

  constructor(readonly root: string) {
    this.recordings = indexRecordings(root);
  }

  /** What can be replayed, for error messages and `insights research --help`. */
  recordedKeywords(): string[] {
    return [...new Set(this.recordings.flatMap((r) => r.keywords))].sort();
  }

  /**
   * What a research run can be answered for: the phrases whose interest over time and autocomplete were
   * recorded (a run asks autocomplete for its phrases, then its series for the primary one) and the markets they were
   * recorded for ('' worldwide). A submission outside them is refused before it is charged.
   */
  coverage(): ReplayCoverage {
    const series = this.recordings.filter((r) => r.kind === 'interestOverTime');
    // autocomplete_phrases asks autocomplete for the phrase before any series: a phrase recorded only as a
    // series (the anchor, "bagel") failed there, charged (security review), so it is not offered.
    const completed = new Set(
      this.recordings.filter((r) => r.kind === 'autocomplete').flatMap((r) => r.keywords.map((k) => k.toLowerCase())),
    );
    return {
      phrases: [...new Set(series.flatMap((r) => r.keywords.map((k) => k.toLowerCase())))].filter((p) => completed.has(p)).sort(),
      markets: [...new Set(series.map((r) => r.geo))].sort(),
    };
  }

  async fetch(request: TrendsRequest): Promise<TrendsResponse> {
    if (request.kind === 'explore') return explorePartByPart(request, (part) => this.fetch(part));
    if (request.kind === 'searchVolume') throw new NotAvailableError('replay', request);
    const what = describeRequest(request);
    const wanted =
      request.kind === 'interestOverTime' || request.kind === 'interestByRegion'
        ? request.keywords
        : request.kind === 'autocomplete'
          ? [request.term]
          : request.kind === 'trendingFeed'
            ? []
            : [request.keyword];
    const geo = 'geo' in request ? request.geo : '';
    const resolution = request.kind === 'interestByRegion' ? request.resolution : undefined;
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    const candidates = this.recordings.filter((r) => r.kind === request.kind && r.geo === geo && r.resolution === resolution);
    const exact = candidates.filter((r) => r.keywords.length === wanted.length && r.keywords.every((k, i) => same(k, wanted[i]!)));
    // Interest over time for keywords that were only recorded inside a larger
    // comparison: take their columns. Google scales each request by its own
    // maximum, so rescaling the columns by their maximum gives what a request
    // for just these keywords returns (up to rounding). Provenance says so.
    // Not for maps: there a comparison's values are shares between the
    // keywords, from which one keyword's own map cannot be recovered.
    const containing =
      request.kind === 'interestOverTime' && exact.length === 0
        ? candidates.filter((r) => wanted.every((w) => r.keywords.some((k) => same(k, w))))
        : [];
    const pool = exact.length > 0 ? exact : containing;
    if (pool.length === 0) {
      throw new NotRecordedError(
        `replay has no recording of ${what}; recorded keywords: ${this.recordedKeywords().join(', ') || `(none — is ${this.root} there?)`}. Use TRENDS_PROVIDER=google for live data.`,
      );
    }
    const match = 'timeframe' in request ? closestWindow(pool, TIMEFRAME_DAYS[request.timeframe]) : pool[0]!;
    const json = parseGuardedJson(readFileSync(match.file, 'utf8'), what);
    const provenance = {
      provider: 'replay' as const,
      recordedTimeRange: match.timeRange,
      recordedAt: match.recordedAt,
      ...(exact.length === 0 && containing.length > 0 ? { derivedFrom: match.keywords.join(' + ') } : {}),
    };
    switch (request.kind) {
      case 'interestOverTime': {
        const parsed = parseMultiline(json, match.keywords, what);
        if (exact.length > 0) return { ...parsed, keywords: request.keywords, provenance };
        const columns = wanted.map((w) => match.keywords.findIndex((k) => same(k, w)));
        const max = Math.max(1, ...parsed.points.flatMap((p) => columns.map((c) => p.values[c] ?? 0)));
        return {
          kind: 'interestOverTime',
          keywords: request.keywords,
          provenance,
          points: parsed.points.map((p) => ({
            date: p.date,
            values: columns.map((c) => Math.round(((p.values[c] ?? 0) / max) * 100)),
            hasData: columns.map((c) => p.hasData[c] ?? false),
            isPartial: p.isPartial,
          })),
        };
      }
      case 'relatedQueries':
      case 'relatedTopics':
        return { ...parseRelated(json, request.kind, what), provenance };
      case 'interestByRegion':
        return { ...parseComparedGeo(json, request.keywords, what), provenance };
      case 'autocomplete':
        return { ...parseAutocomplete(json, what), provenance };
      case 'trendingFeed':
        throw new NotRecordedError(
          `replay has no recording of ${what}: the trending feed was never recorded. Use TRENDS_PROVIDER=google for live data.`,
        );
    }
  }
}

const TIMEFRAME_DAYS: Record<Timeframe, number> = { '30d': 30, '90d': 90, '12m': 365, '5y': 1826 };

/** The recording whose window length is closest (in log scale) to the requested one. */
function closestWindow(pool: Recording[], days: number): Recording {
  const lengthOf = (r: Recording) => {
    const [from, to] = r.timeRange.split(' ');
    const span = (Date.parse(to ?? '') - Date.parse(from ?? '')) / 86_400_000;
    return Number.isFinite(span) && span > 0 ? span : days;
  };
  return [...pool].sort((a, b) => Math.abs(Math.log(lengthOf(a) / days)) - Math.abs(Math.log(lengthOf(b) / days)))[0]!;
}
