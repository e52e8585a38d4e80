// The real thing: Google Trends over HTTPS (google-client.ts). Only the
// `trends` queue's worker calls this (paced per egress route); nothing else
// talks to Google, except `insights google check`. Every request leaves
// through one egress route (direct or a proxy) with one deadline over all of
// its HTTPS exchanges, and reports how many exchanges it took and how Google
// labelled the client. Related queries and topics are read from explore's own
// widget first (served again as measured on 2026-09-09, gtrends), and through
// the embed flow only when that list is empty and the route's embed quota
// allows (the embed quota was reported persistently spent in 2026); as parts of
// an explore too, so one explore serves a run's maps and both lists. A widget's request is sent
// as explore served it, never edited (see GoogleSession.widget); a 401 to it
// asks explore again, once.
import { withEgress, type EgressRoute } from './egress/routes.js';
import {
  GoogleSession,
  wasNotSent,
  widgetOf,
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
import { describeRequest, NotAvailableError, RefusedError, type TrendsProvider } from '../contract.js';
import type { ExploreAnswer, ExplorePart, Timeframe, TrendsRequest, TrendsResponse } from '../../domain/trends/answers.js';
import { EmbedOverQuotaError } from './errors.js';

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
  /** After each request: the route's in-flight slot is free (see EgressPool.pacers). */
  sent?: () => Promise<void>;
}

const DIRECT: EgressRoute = { name: 'direct' };
type RelatedKind = 'relatedQueries' | 'relatedTopics';
const RELATED_WIDGET: Record<RelatedKind, 'RELATED_QUERIES' | 'RELATED_TOPICS'> = {
  relatedQueries: 'RELATED_QUERIES',
  relatedTopics: 'RELATED_TOPICS',
};

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
          session = new GoogleSession(agent, route.name, {
            ...fetchOptions,
            observe: this.options.observe,
            outsideDeadline,
            ...(route.consentCookie ? { consentCookie: route.consentCookie } : {}),
          });
          const answer = await this.answer(session, request, what);
          const via = request.kind === 'autocomplete' || request.kind === 'trendingFeed' ? undefined : (session.via ?? 'explore');
          return {
            ...answer,
            provenance: {
              provider: 'google' as const,
              requests: session.requests,
              route: route.name,
              ...(via ? { via } : {}),
              ...(session.embedOverQuota ? { embedOverQuota: true as const } : {}),
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
        const items = this.items(request.keywords, request.timeframe, request.geo);
        const widgets = { current: await session.explore(items, what) };
        const answer: ExploreAnswer = { kind: 'explore', keywords: request.keywords };
        for (const part of request.parts) {
          const asked = partRequest(request, part);
          // A related list rides on this explore's widget, with the embed flow behind it as for a list asked alone.
          (answer as unknown as Record<string, TrendsResponse>)[part] =
            asked.kind === 'relatedQueries' || asked.kind === 'relatedTopics'
              ? await this.related(session, asked, what, { widgets, items })
              : await this.widgetAnswer(session, widgets, items, asked, PART_WIDGET[part], what);
        }
        return answer;
      }
      case 'relatedQueries':
      case 'relatedTopics':
        return this.related(session, request, what);
      case 'interestOverTime':
      case 'interestByRegion': {
        const items = this.items(request.keywords, request.timeframe, request.geo);
        const widgets = { current: await session.explore(items, what) };
        return this.widgetAnswer(session, widgets, items, request, request.kind === 'interestOverTime' ? 'TIMESERIES' : 'GEO_MAP', what);
      }
    }
  }

  /**
   * A related list: explore's own widget; when its list is empty, the embed
   * flow, unless the route's embed quota is spent (a token over quota, or the
   * route's embed pages waiting): then explore's empty list is the answer,
   * marked so, and the route's embed pages are closed by the caller.
   */
  private async related(
    session: GoogleSession,
    request: Extract<TrendsRequest, { kind: RelatedKind }>,
    what: string,
    /** The explore already asked, when the list is a part of it. */
    explored?: { widgets: { current: Widget[]; renewed?: boolean }; items: ComparisonItem[] },
  ): Promise<TrendsResponse> {
    const items = explored?.items ?? this.items([request.keyword], request.timeframe, request.geo);
    const widgets = explored?.widgets ?? { current: await session.explore(items, what) };
    const listed = await this.widgetAnswer(session, widgets, items, request, RELATED_WIDGET[request.kind], what);
    session.via ??= 'explore'; // an earlier part of the same explore may have used the embed flow
    if (listed.kind !== request.kind || listed.outcome !== 'empty') return listed;
    try {
      const embedded = await session.embedRelated(items[0]!, RELATED_WIDGET[request.kind], what, (json) =>
        parseRelated(json, request.kind, what),
      );
      session.via = 'embed';
      return embedded;
    } catch (error) {
      const waiting = wasNotSent(error) && (error as { reason?: string }).reason === 'embed_quota';
      if (!(error instanceof EmbedOverQuotaError) && !waiting) throw error;
      session.embedOverQuota = true;
      return listed;
    }
  }

  /**
   * One part of an explore answer from its widget, sent as explore served it.
   * A 401 to it (a stale token) asks explore again, once. A map at a
   * resolution explore's widget does not carry is "no data", asked of no one:
   * explore picks the map's resolution from the geo alone ('' by country, a
   * country by region, a region outside the US by city, a US state by DMA:
   * gtrends, 2026-09-09), no explore serves a country's cities, and an edited
   * widget request is a 401.
   */
  private async widgetAnswer(
    session: GoogleSession,
    widgets: { current: Widget[]; renewed?: boolean },
    items: ComparisonItem[],
    request: TrendsRequest,
    id: WidgetId,
    what: string,
  ): Promise<TrendsResponse> {
    for (;;) {
      if (request.kind === 'interestByRegion') {
        const served = widgetOf(widgets.current, id)?.request.resolution;
        if (served !== undefined && served !== request.resolution)
          return { kind: 'interestByRegion', keywords: request.keywords, regions: [], outcome: 'no_data' };
      }
      const answer = await this.askWidget(session, widgets.current, request, id, what);
      if (answer !== null) return answer;
      if (widgets.renewed) throw new RefusedError(`Google Trends refused ${what}'s widget twice (HTTP 401), fresh tokens included`);
      widgets.renewed = true;
      widgets.current = await session.explore(items, `${what} (explore again: a widget token was refused)`);
    }
  }

  private askWidget(session: GoogleSession, widgets: Widget[], request: TrendsRequest, id: WidgetId, what: string) {
    switch (request.kind) {
      case 'interestOverTime':
        return session.widget(widgets, id, what, (json) => parseMultiline(json, request.keywords, what));
      case 'relatedQueries':
      case 'relatedTopics':
        return session.widget(widgets, id, what, (json) => parseRelated(json, request.kind, what));
      case 'interestByRegion':
        return session.widget(widgets, id, what, (json) => parseComparedGeo(json, request.keywords, what));
      default:
        throw new Error(`${request.kind} is not an explore widget`);
    }
  }

  private items(keywords: string[], timeframe: Timeframe, geo: string): ComparisonItem[] {
    const time = timeRange(timeframe, this.now());
    return keywords.map((keyword) => ({ keyword, geo, time }));
  }
}
