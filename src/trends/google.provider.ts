// The real thing: the google-trends-api package over HTTPS. Only the `trends`
// queue's worker calls this (one global rate limit); nothing else talks to Google.
// Every request leaves through an egress route (direct or a proxy) with one
// deadline over all of its HTTPS exchanges.
import type https from 'node:https';
import googleTrends from 'google-trends-api';
import { withEgress, type EgressRoute } from './egress.js';
import {
  classifyNonJson,
  parseAutocomplete,
  parseComparedGeo,
  parseDailyTrends,
  parseGuardedJson,
  parseMultiline,
  parseRelated,
} from './google-format.js';
import { describeRequest, MalformedResponseError, type Timeframe, type TrendsProvider, type TrendsRequest, type TrendsResponse } from './types.js';

const DAY_MS = 86_400_000;
const TIMEFRAME_DAYS: Record<Timeframe, number> = { '30d': 30, '90d': 90, '12m': 365, '5y': 5 * 365 };

function window(timeframe: Timeframe, now: Date) {
  return { startTime: new Date(now.getTime() - TIMEFRAME_DAYS[timeframe] * DAY_MS), endTime: now };
}

/** The package rejects with the raw body on non-JSON answers; classify it (rate limit vs malformed). */
function explain(error: unknown, what: string): never {
  const body = (error as { requestBody?: unknown }).requestBody;
  if (typeof body === 'string') classifyNonJson(body, what);
  if (error instanceof SyntaxError) {
    throw new MalformedResponseError(`Google Trends answered ${what} with something that is not JSON (${error.message})`);
  }
  throw error;
}

export interface GoogleProviderOptions {
  now?: () => Date;
  /** Overall deadline of one request, all its HTTPS exchanges included (TRENDS_REQUEST_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Extra CA certificates: only for a Google of one's own (tests, benchmarks). */
  ca?: string | Buffer;
}

const DIRECT: EgressRoute = { name: 'direct' };

export class GoogleTrendsProvider implements TrendsProvider {
  readonly name = 'google' as const;
  private readonly now: () => Date;
  private readonly timeoutMs: number;

  constructor(private readonly options: GoogleProviderOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.timeoutMs = options.timeoutMs ?? 20_000;
  }

  /** Asks Google through `route` (a proxy, or direct). */
  async fetch(request: TrendsRequest, route: EgressRoute = DIRECT): Promise<TrendsResponse> {
    const what = describeRequest(request);
    let raw: string;
    try {
      raw = await withEgress(route, this.timeoutMs, (agent) => this.call(request, agent), { ca: this.options.ca });
    } catch (error) {
      explain(error, what);
    }
    // The package strips the guard and re-serialises; a string that is not JSON is an error page.
    const json = parseGuardedJson(raw, what);
    if (json !== null && typeof json === 'object' && 'message' in json && !('default' in json)) {
      throw new MalformedResponseError(`Google Trends answer for ${what}: ${String((json as { message: unknown }).message)}`);
    }
    switch (request.kind) {
      case 'interestOverTime':
        return parseMultiline(json, request.keywords, what);
      case 'relatedQueries':
      case 'relatedTopics':
        return parseRelated(json, request.kind, what);
      case 'interestByRegion':
        return parseComparedGeo(json, request.keywords, what);
      case 'autocomplete':
        return parseAutocomplete(json, what);
      case 'dailyTrends':
        return parseDailyTrends(json, what);
    }
  }

  private call(request: TrendsRequest, agent: https.Agent): Promise<string> {
    const base = { hl: 'en-US', timezone: 0, agent };
    switch (request.kind) {
      case 'interestOverTime':
        return googleTrends.interestOverTime({
          ...base,
          keyword: request.keywords.length === 1 ? request.keywords[0]! : request.keywords,
          geo: request.geo,
          ...window(request.timeframe, this.now()),
        });
      case 'relatedQueries':
        return googleTrends.relatedQueries({ ...base, keyword: request.keyword, geo: request.geo, ...window(request.timeframe, this.now()) });
      case 'relatedTopics':
        return googleTrends.relatedTopics({ ...base, keyword: request.keyword, geo: request.geo, ...window(request.timeframe, this.now()) });
      case 'interestByRegion':
        return googleTrends.interestByRegion({
          ...base,
          keyword: request.keywords.length === 1 ? request.keywords[0]! : request.keywords,
          geo: request.geo,
          resolution: request.resolution,
          ...window(request.timeframe, this.now()),
        });
      case 'autocomplete':
        return googleTrends.autoComplete({ keyword: request.term, hl: 'en-US', agent });
      case 'dailyTrends':
        return googleTrends.dailyTrends({ geo: request.geo, trendDate: new Date(`${request.date}T12:00:00Z`), hl: 'en-US', agent });
    }
  }
}
