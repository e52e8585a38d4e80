// The Trends API as a provider: interest over time (daily for the 30- and 90-day
// windows, weekly for 12 months and five years: its rolling 1,800 days ending two
// days ago) and interest by country or region, each term asked on its own. Its
// searchInterest is on one scale across requests, so a comparison of several terms
// (the phrase and the anchor, say) is each term's own answer put side by side: no
// term is asked beside another to be comparable, and none is rounded away beside a
// far more searched one. The answers are the normalised ones every provider returns,
// 0–100 on the comparison's largest searchInterest (domain/trends/answers.ts).
import type {
  ExploreAnswer,
  InterestByRegion,
  InterestOverTime,
  Timeframe,
  TrendsRequest,
  TrendsResponse,
} from '../../domain/trends/answers.js';
import { describeRequest, NotAvailableError, RefusedError, type TrendsProvider } from '../contract.js';
import type { TrendsApiClient } from './client.js';
import { apiDay, expectShape, GeoBreakdownSchema, isoDay, TimeSeriesSchema } from './format.js';

const DAY_MS = 86_400_000;
/** The API's data ends two days before today and reaches back 1,800 days (its alpha announcement, 2025-07-24). */
export const DATA_LAG_DAYS = 2;
export const WINDOW_DAYS = 1_800;

/** Each of our windows as the API is asked it: days back from its last day of data, and the resolution. */
export const WINDOWS: Record<Timeframe, { days: number; resolution: 'DAILY' | 'WEEKLY'; stepDays: number }> = {
  '30d': { days: 30, resolution: 'DAILY', stepDays: 1 },
  '90d': { days: 90, resolution: 'DAILY', stepDays: 1 },
  '12m': { days: 364, resolution: 'WEEKLY', stepDays: 7 },
  // Five years is 1,826 days: the API's 1,800 are what there is.
  '5y': { days: WINDOW_DAYS - 1, resolution: 'WEEKLY', stepDays: 7 },
};

const isoOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const round2 = (x: number) => Math.round(x * 100) / 100;
/** What the API counts a question by: the points it answers (docs/providers.md, "What the Trends API is asked"). */
type Counted<T> = { answer: T; requests: number; dataPoints: number; scalePeak?: number };

export class TrendsApiProvider implements TrendsProvider {
  readonly name = 'trends-api' as const;

  constructor(
    private readonly client: Pick<TrendsApiClient, 'ask'>,
    private readonly today = () => new Date(),
  ) {}

  /** The window a timeframe is asked over: its first and last day (UTC). */
  timeRange(timeframe: Timeframe): { startDate: string; endDate: string } {
    const now = this.today();
    const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - DATA_LAG_DAYS * DAY_MS;
    return { startDate: isoOf(end - WINDOWS[timeframe].days * DAY_MS), endDate: isoOf(end) };
  }

  async fetch(request: TrendsRequest): Promise<TrendsResponse> {
    const what = describeRequest(request);
    switch (request.kind) {
      case 'interestOverTime':
        return this.sourced(await this.series(request.keywords, request.timeframe, request.geo, what));
      case 'interestByRegion':
        if (request.resolution === 'CITY') throw new NotAvailableError('trends-api', request);
        return this.sourced(await this.regions(request.keywords, request.timeframe, request.geo, what));
      case 'explore': {
        const answer: ExploreAnswer = { kind: 'explore', keywords: request.keywords };
        let requests = 0;
        let dataPoints = 0;
        for (const part of request.parts) {
          if (part !== 'series' && part !== 'mapCountry')
            throw new RefusedError(`the Google Trends API has no ${part}, for ${what} (the router asks it only for series and maps)`);
          const counted =
            part === 'series'
              ? await this.series(request.keywords, request.timeframe, request.geo, what)
              : await this.regions(request.keywords, request.timeframe, request.geo, what);
          (answer as unknown as Record<string, unknown>)[part] = counted.answer;
          requests += counted.requests;
          dataPoints += counted.dataPoints;
        }
        return this.sourced({ answer, requests, dataPoints });
      }
      case 'relatedQueries':
      case 'relatedTopics':
      case 'autocomplete':
      case 'trendingFeed':
      case 'searchVolume':
        throw new NotAvailableError('trends-api', request);
    }
  }

  private sourced({ answer, requests, dataPoints, scalePeak }: Counted<TrendsResponse>): TrendsResponse {
    return {
      ...answer,
      provenance: {
        provider: 'trends-api',
        requests,
        costUsd: 0,
        dataPoints,
        valuesFrom: 'searchInterest',
        ...(scalePeak !== undefined ? { scalePeak } : {}),
      },
    };
  }

  /** Each term's own series, put on one 0–100 scale by the largest searchInterest among them. */
  private async series(keywords: string[], timeframe: Timeframe, geo: string, what: string): Promise<Counted<InterestOverTime>> {
    const range = this.timeRange(timeframe);
    const { resolution, stepDays } = WINDOWS[timeframe];
    const byTerm: Array<Map<string, number>> = [];
    let dataPoints = 0;
    for (const term of keywords) {
      const response = await this.client.ask(
        'fetchTimeSeries',
        { term, ...(geo ? { geo } : {}), timeRange: { startDate: apiDay(range.startDate), endDate: apiDay(range.endDate) }, resolution },
        what,
      );
      const points = expectShape(TimeSeriesSchema, response, what).timeSeries.points;
      dataPoints += points.length;
      byTerm.push(new Map(points.map((p) => [isoDay(p.date), p.searchInterest])));
    }
    const dates = [...new Set(byTerm.flatMap((m) => [...m.keys()]))].sort();
    const peak = Math.max(0, ...byTerm.flatMap((m) => [...m.values()]));
    // A term whose every point is zero has no data (as Google's own pages say "not enough data").
    const anyData = byTerm.map((m) => [...m.values()].some((v) => v > 0));
    const points = dates.map((date) => ({
      date,
      // Not rounded: a phrase searched 1/10,000th as much as the batch's largest term keeps its values (outside review
      // of issue 51: rounded to 2 decimals, a primary at 0.4 beside a term at 9,000 read as all zeros).
      values: byTerm.map((m) => (peak > 0 ? ((m.get(date) ?? 0) * 100) / peak : 0)),
      hasData: byTerm.map((m, i) => anyData[i]! && m.has(date)),
      // A week that reaches past the API's last day of data is not over in its answer.
      isPartial: isoOf(Date.parse(date) + (stepDays - 1) * DAY_MS) > range.endDate,
    }));
    const noData = points.length === 0 || anyData.every((d) => !d);
    return {
      answer: { kind: 'interestOverTime', keywords, points, ...(noData ? { outcome: 'no_data' as const } : {}) },
      requests: keywords.length,
      dataPoints,
      // What the answer's 100 stands for: a run reads each term's own searchInterest back (demand without an anchor).
      scalePeak: peak,
    };
  }

  /**
   * Each term's breakdown one level below `geo` (countries worldwide, a country's ISO 3166-2 regions). One term:
   * each place scaled so the strongest is 100; several: each term's share of their searches there, in percent, as
   * Google's own map answers a comparison (searchInterest is one scale, so the shares are of comparable values).
   */
  private async regions(keywords: string[], timeframe: Timeframe, geo: string, what: string): Promise<Counted<InterestByRegion>> {
    const range = this.timeRange(timeframe);
    const byTerm: Array<Map<string, number>> = [];
    const names = new Map<string, string>();
    let dataPoints = 0;
    for (const term of keywords) {
      const response = await this.client.ask(
        'fetchGeoBreakdown',
        { term, ...(geo ? { geo } : {}), timeRange: { startDate: apiDay(range.startDate), endDate: apiDay(range.endDate) } },
        what,
      );
      const points = expectShape(GeoBreakdownSchema, response, what).geoBreakdown.points;
      dataPoints += points.length;
      for (const p of points) if (p.displayName) names.set(p.geo, p.displayName);
      byTerm.push(new Map(points.map((p) => [p.geo, p.searchInterest])));
    }
    const places = [...new Set(byTerm.flatMap((m) => [...m.keys()]))];
    const peak = Math.max(0, ...byTerm.flatMap((m) => [...m.values()]));
    const regions = places.map((code) => {
      const raw = byTerm.map((m) => m.get(code) ?? 0);
      const total = raw.reduce((a, b) => a + b, 0);
      const values =
        keywords.length === 1
          ? raw.map((v) => (peak > 0 ? round2((v * 100) / peak) : 0))
          : raw.map((v) => (total > 0 ? round2((v * 100) / total) : 0));
      return { geoCode: code, geoName: names.get(code) ?? code, values, hasData: raw.map((v) => v > 0) };
    });
    const noData = regions.every((r) => r.hasData.every((h) => !h));
    return {
      answer: { kind: 'interestByRegion', keywords, regions, ...(noData ? { outcome: 'no_data' as const } : {}) },
      requests: keywords.length,
      dataPoints,
    };
  }
}
