// An explore request answered by asking for each part on its own: how the
// providers without Google's explore tokens (replay, synthetic) serve one.
// The parts are the same single-kind requests the google provider would
// otherwise make, so a run reads the same evidence whichever provider it has.
import { NotRecordedError } from './contract.js';
import type { ExploreAnswer, ExplorePart, TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';

export function partRequest(request: Extract<TrendsRequest, { kind: 'explore' }>, part: ExplorePart): TrendsRequest {
  const [keyword = ''] = request.keywords;
  switch (part) {
    case 'series':
      return { kind: 'interestOverTime', keywords: request.keywords, timeframe: request.timeframe, geo: request.geo };
    case 'relatedQueries':
    case 'relatedTopics':
      return { kind: part, keyword, timeframe: request.timeframe, geo: request.geo };
    case 'mapCountry':
    case 'mapCity':
      return {
        kind: 'interestByRegion',
        keywords: request.keywords,
        timeframe: request.timeframe,
        geo: request.geo,
        resolution: part === 'mapCountry' ? 'COUNTRY' : 'CITY',
      };
  }
}

/**
 * Replay has no recording of some parts (a phrase's own map, say): those are
 * left out, and a step that needs one fails with replay's message then, not
 * the steps that need only the others.
 */
export async function explorePartByPart(
  request: Extract<TrendsRequest, { kind: 'explore' }>,
  fetch: (r: TrendsRequest) => Promise<TrendsResponse>,
): Promise<ExploreAnswer> {
  const answer: ExploreAnswer = { kind: 'explore', keywords: request.keywords };
  const missing: Record<string, string> = {};
  for (const part of request.parts) {
    try {
      (answer as unknown as Record<string, TrendsResponse>)[part] = await fetch(partRequest(request, part));
    } catch (error) {
      if (!(error instanceof NotRecordedError)) throw error;
      missing[part] = error.message;
    }
  }
  return Object.keys(missing).length > 0 ? { ...answer, missing } : answer;
}
