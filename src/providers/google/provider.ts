// The real thing: Google Trends over HTTPS (google-client.ts). Only the
// `trends` queue's worker calls this (paced per egress route); nothing else
// talks to Google, except `insights google check`. Every request leaves
// through one egress route (direct or a proxy) with one deadline over all of
// its HTTPS exchanges, and reports how many exchanges it took and how Google
// labelled the client. Related queries and topics asked on their own go
// through the embed flow (the explore page's widgets serve them empty); as
// parts of an explore they are the explore widgets, as asked.
import { withEgress, type EgressRoute } from '../../trends/egress.js';
import {
  GoogleSession,
  type ComparisonItem,
  type CookieJar,
  type ExchangeObserver,
  type Pacer,
  type Widget,
  type WidgetId,
} from './client.js';
import { parseAutocomplete, parseComparedGeo, parseMultiline, parseRelated } from './format.js';
import { readTrending } from './trending.js';
import { partRequest } from '../explore-parts.js';
import {
  describeRequest,
  NotAvailableError,
  type ExploreAnswer,
  type ExplorePart,
  type Timeframe,
  type TrendsProvider,
  type TrendsRequest,
  type TrendsResponse,
} from '../../trends/types.js';

const DAY_MS = 86_400_000;
const TIMEFRAME_DAYS: Record<Timeframe, number> = { '30d': 30, '90d': 90, '12m': 365, '5y': 5 * 365 };

const ymd = (d: Date) => d.toISOString().slice(0, 10);

/** Google's time range for a window ending today: "YYYY-MM-DD YYYY-MM-DD" (daily up to ~270 days, weekly beyond). */
export function timeRange(timeframe: Timeframe, now: Date): string {
  return `${ymd(new Date(now.getTime() - TIMEFRAME_DAYS[timeframe] * DAY_MS))} ${ymd(now)}`;
}

export interface GoogleProviderOptions {
  now?: () => Date;
  /** Overall deadline of one request's talking to Google, all its HTTPS exchanges included (TRENDS_REQUEST_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Extra CA certificates: only for a Google of one's own (tests, benchmarks). */
  ca?: string | Buffer;
  /** Connect to this host instead of trends.google.com (tests: a name that does not resolve). */
  connectTo?: string;
  /** Told about every HTTPS exchange and how Google answered it (metrics). */
  observe?: ExchangeObserver;
}

export interface FetchOptions {
  /** Asked before each HTTPS request: the route's pace (see egress-pool.ts). */
  pace?: Pacer;
  /** Asked before each embed page instead: the route's embed pace and its request pace. */
  paceEmbed?: Pacer;
  /** Where the route's cookie is kept (shared by every process); default this process's memory. */
  jar?: CookieJar;
}

const DIRECT: EgressRoute = { name: 'direct' };

const PART_WIDGET: Record<ExplorePart, WidgetId> = {
  series: 'TIMESERIES',
  relatedQueries: 'RELATED_QUERIES',
  relatedTopics: 'RELATED_TOPICS',
  mapCountry: 'GEO_MAP',
  mapCity: 'GEO_MAP',
};

export class GoogleTrendsProvider implements TrendsProvider {
  readonly name = 'google' as const;
  private readonly now: () => Date;
  private readonly timeoutMs: number;

  constructor(private readonly options: GoogleProviderOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.timeoutMs = options.timeoutMs ?? 20_000;
  }

  /** Asks Google through `route` (a proxy, or direct). */
  async fetch(request: TrendsRequest, route: EgressRoute = DIRECT, fetchOptions: FetchOptions = {}): Promise<TrendsResponse> {
    const what = describeRequest(request);
    let session: GoogleSession | undefined;
    try {
      return await withEgress(
        route,
        this.timeoutMs,
        async (agent, outsideDeadline) => {
          session = new GoogleSession(agent, route.name, { ...fetchOptions, observe: this.options.observe, outsideDeadline });
          const answer = await this.answer(session, request, what);
          const via =
            request.kind === 'relatedQueries' || request.kind === 'relatedTopics'
              ? 'embed'
              : request.kind === 'autocomplete' || request.kind === 'trendingFeed'
                ? undefined
                : 'explore';
          return {
            ...answer,
            provenance: {
              provider: 'google' as const,
              requests: session.requests,
              route: route.name,
              ...(via ? { via } : {}),
              ...(session.userType ? { userType: session.userType } : {}),
            },
          };
        },
        { ca: this.options.ca, ...(this.options.connectTo ? { connectTo: this.options.connectTo } : {}) },
      );
    } catch (error) {
      // What it spent before failing still counts against the budget.
      if (error instanceof Error)
        Object.assign(error, { requests: session?.requests ?? 0, ...(session?.userType ? { userType: session.userType } : {}) });
      throw error;
    }
  }

  private async answer(session: GoogleSession, request: TrendsRequest, what: string): Promise<TrendsResponse> {
    switch (request.kind) {
      case 'searchVolume':
        throw new NotAvailableError('google', request);
      case 'autocomplete':
        return session.autocomplete(request.term, what, (json) => parseAutocomplete(json, what));
      case 'trendingFeed':
        // The feed, else the Trending Now RPC, else the /trending page (trending.ts).
        return readTrending(session, request.geo, 'en-US', what);
      case 'explore': {
        const widgets = await session.explore(this.items(request.keywords, request.timeframe, request.geo), what);
        const answer: ExploreAnswer = { kind: 'explore', keywords: request.keywords };
        for (const part of request.parts) {
          (answer as unknown as Record<string, TrendsResponse>)[part] = await this.widgetAnswer(
            session,
            widgets,
            partRequest(request, part),
            PART_WIDGET[part],
            what,
          );
        }
        return answer;
      }
      case 'relatedQueries':
      case 'relatedTopics': {
        const [item] = this.items([request.keyword], request.timeframe, request.geo);
        return session.embedRelated(item!, request.kind === 'relatedQueries' ? 'RELATED_QUERIES' : 'RELATED_TOPICS', what, (json) =>
          parseRelated(json, request.kind, what),
        );
      }
      case 'interestOverTime':
      case 'interestByRegion': {
        const widgets = await session.explore(this.items(request.keywords, request.timeframe, request.geo), what);
        return this.widgetAnswer(session, widgets, request, request.kind === 'interestOverTime' ? 'TIMESERIES' : 'GEO_MAP', what);
      }
    }
  }

  private async widgetAnswer(
    session: GoogleSession,
    widgets: Widget[],
    request: TrendsRequest,
    id: WidgetId,
    what: string,
  ): Promise<TrendsResponse> {
    switch (request.kind) {
      case 'interestOverTime':
        return session.widget(widgets, id, what, (json) => parseMultiline(json, request.keywords, what));
      case 'relatedQueries':
      case 'relatedTopics':
        return session.widget(widgets, id, what, (json) => parseRelated(json, request.kind, what));
      case 'interestByRegion':
        return session.widget(widgets, id, what, (json) => parseComparedGeo(json, request.keywords, what), {
          resolution: request.resolution,
        });
      default:
        throw new Error(`${request.kind} is not an explore widget`);
    }
  }

  private items(keywords: string[], timeframe: Timeframe, geo: string): ComparisonItem[] {
    const time = timeRange(timeframe, this.now());
    return keywords.map((keyword) => ({ keyword, geo, time }));
  }
}
