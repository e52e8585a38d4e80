// DataForSEO as a provider: Google Trends explore (series, maps by country or
// region, related queries and topics) and Google Ads search volume (monthly
// searches, cost per click, competition), each request one live task.
// Capabilities, limits and prices: domain/trends/capabilities.ts.
import { createHash } from 'node:crypto';
import type { ExploreAnswer, ExplorePart, TrendsRequest, TrendsResponse } from '../../domain/trends/answers.js';
import { describeRequest, MalformedResponseError, NotAvailableError, RefusedError, type TrendsProvider } from '../contract.js';
import { postTask, type DataForSeoSettings } from './client.js';
import { DATAFORSEO_COUNTRIES } from './profile.js';
import { ExploreResultSchema, expectShape, ITEM_TYPES, parseGraph, parseMap, parseRelated, parseVolume, TIME_RANGES } from './format.js';

const EXPLORE_PATH = '/v3/keywords_data/google_trends/explore/live';
const VOLUME_PATH = '/v3/keywords_data/google_ads/search_volume/live';

/** Where a request is asked: nothing for worldwide, the country's location code otherwise. */
function locationOf(geo: string, what: string): { location_code?: number } {
  if (geo === '') return {};
  const country = DATAFORSEO_COUNTRIES[geo];
  if (!country)
    throw new RefusedError(
      `the dataforseo provider asks by country; ${geo} is not one it knows (${Object.keys(DATAFORSEO_COUNTRIES).join(', ')}), for ${what}`,
    );
  return { location_code: country.code };
}

/**
 * Google Ads refuses a keyword of more than 80 characters or 10 words, or with
 * symbols it does not allow (one such keyword fails the whole task): those are
 * left out of the request, and come back with no figures.
 */
export const adsAccepts = (keyword: string) =>
  keyword.length <= 80 && keyword.trim().split(/\s+/).length <= 10 && !/[!@%^*()={};~`<>?\\|,]/.test(keyword);

export class DataForSeoProvider implements TrendsProvider {
  readonly name = 'dataforseo' as const;

  constructor(
    private readonly settings: DataForSeoSettings,
    private readonly today = () => new Date(),
  ) {}

  /** What it would refuse without sending anything: a market it has no location code for. */
  unanswerable(request: TrendsRequest): Error | null {
    if (request.kind === 'autocomplete' || request.kind === 'trendingFeed' || request.geo === '' || DATAFORSEO_COUNTRIES[request.geo])
      return null;
    const what = describeRequest(request);
    if (request.kind === 'searchVolume')
      return new NotAvailableError(
        'dataforseo',
        request,
        `for ${request.geo}: it is asked by country (${Object.keys(DATAFORSEO_COUNTRIES).join(', ')})`,
      );
    try {
      locationOf(request.geo, what);
      return null;
    } catch (error) {
      return error as Error;
    }
  }

  async fetch(request: TrendsRequest): Promise<TrendsResponse> {
    const what = describeRequest(request);
    switch (request.kind) {
      case 'interestOverTime': {
        const answer = await this.explore(request.keywords, request.timeframe, request.geo, ['series'], what);
        return { ...answer.series!, provenance: answer.provenance };
      }
      case 'relatedQueries':
      case 'relatedTopics': {
        const answer = await this.explore([request.keyword], request.timeframe, request.geo, [request.kind], what);
        return { ...answer[request.kind]!, provenance: answer.provenance };
      }
      case 'interestByRegion': {
        if (request.resolution === 'CITY') throw new NotAvailableError('dataforseo', request);
        const answer = await this.explore(request.keywords, request.timeframe, request.geo, ['mapCountry'], what);
        return { ...answer.mapCountry!, provenance: answer.provenance };
      }
      case 'explore': {
        if (request.parts.includes('mapCity'))
          throw new NotAvailableError('dataforseo', { ...request, kind: 'interestByRegion', resolution: 'CITY' });
        return this.explore(request.keywords, request.timeframe, request.geo, request.parts, what);
      }
      case 'searchVolume':
        return this.volume(request.keywords, request.geo, request.language, what);
      case 'autocomplete':
      case 'trendingFeed':
        throw new NotAvailableError('dataforseo', request);
    }
  }

  /** One explore task for the parts asked (its related lists come for a single keyword only). */
  private async explore(
    keywords: string[],
    timeframe: keyof typeof TIME_RANGES,
    geo: string,
    parts: readonly ExplorePart[],
    what: string,
  ): Promise<ExploreAnswer & { provenance: NonNullable<TrendsResponse['provenance']> }> {
    if (keywords.length > 5) throw new RefusedError(`DataForSEO's Trends compares at most 5 keywords, not ${keywords.length}, for ${what}`);
    const wantsLists = parts.includes('relatedQueries') || parts.includes('relatedTopics');
    if (wantsLists && keywords.length > 1)
      throw new RefusedError(`DataForSEO lists related queries and topics for one keyword only, for ${what}`);
    const task = await postTask(
      this.settings,
      EXPLORE_PATH,
      {
        keywords,
        ...locationOf(geo, what),
        type: 'web',
        time_range: TIME_RANGES[timeframe],
        item_types: parts.map((p) => ITEM_TYPES[p as keyof typeof ITEM_TYPES]),
        tag: tagOf(keywords),
      },
      what,
    );
    const result = task.result?.[0];
    const items = result === undefined ? [] : (expectShape(ExploreResultSchema, result, what).items ?? []);
    const today = this.today().toISOString().slice(0, 10);
    const answer: ExploreAnswer = { kind: 'explore', keywords };
    for (const part of parts) {
      if (part === 'series') answer.series = parseGraph(items, keywords, what, today);
      else if (part === 'mapCountry') answer.mapCountry = parseMap(items, keywords, what);
      else if (part === 'relatedQueries' || part === 'relatedTopics') answer[part] = parseRelated(items, part, what);
    }
    return { ...answer, provenance: { provider: 'dataforseo', requests: 1, costUsd: task.cost, taskId: task.id } };
  }

  private async volume(keywords: string[], geo: string, language: string, what: string): Promise<TrendsResponse> {
    const asked = [...new Set(keywords.map((k) => k.toLowerCase()))].filter(adsAccepts).slice(0, 1000);
    const location = geo === '' ? { name: 'the world', code: 0 } : DATAFORSEO_COUNTRIES[geo];
    // Google Ads figures are asked by country here: a region's are not asked, and said so (never an empty answer).
    const refused = this.unanswerable({ kind: 'searchVolume', keywords, geo, language });
    if (refused || !location) throw refused ?? new RefusedError(`no location for ${geo}, for ${what}`);
    const provenanceOf = (cost: number, taskId?: string) => ({
      provider: 'dataforseo' as const,
      requests: taskId ? 1 : 0,
      costUsd: cost,
      ...(taskId ? { taskId } : {}),
    });
    if (asked.length === 0) return { kind: 'searchVolume', geo, location, language, keywords: [], provenance: provenanceOf(0) };
    const task = await postTask(
      this.settings,
      VOLUME_PATH,
      { keywords: asked, ...locationOf(geo, what), language_code: language, tag: tagOf(asked) },
      what,
    );
    const found = parseVolume(task.result ?? [], what);
    if (found.some((k) => !asked.includes(k.keyword.toLowerCase())))
      throw new MalformedResponseError(`DataForSEO answered ${what} with keywords it was not asked for`);
    // In the order asked: the primary phrase first.
    found.sort((a, b) => asked.indexOf(a.keyword.toLowerCase()) - asked.indexOf(b.keyword.toLowerCase()));
    return { kind: 'searchVolume', geo, location, language, keywords: found, provenance: provenanceOf(task.cost, task.id) };
  }
}

/** A tag DataForSEO echoes back, to find a task in its dashboard: a hash, never the idea itself. */
const tagOf = (keywords: string[]) => `si-${createHash('sha256').update(keywords.join('|')).digest('hex').slice(0, 16)}`;
