// An explore request answered by asking for each part on its own: how the
// providers without Google's explore tokens (replay, synthetic) serve one.
// The parts are the same single-kind requests the google provider would
// otherwise make, so a run reads the same evidence whichever provider it has.
import type { ExploreAnswer, ExplorePart, TrendsRequest, TrendsResponse } from './types.js';

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
      return { kind: 'interestByRegion', keywords: request.keywords, timeframe: request.timeframe, geo: request.geo, resolution: part === 'mapCountry' ? 'COUNTRY' : 'CITY' };
  }
}

export async function explorePartByPart(request: Extract<TrendsRequest, { kind: 'explore' }>, fetch: (r: TrendsRequest) => Promise<TrendsResponse>): Promise<ExploreAnswer> {
  const answer: ExploreAnswer = { kind: 'explore', keywords: request.keywords };
  for (const part of request.parts) {
    const response = await fetch(partRequest(request, part));
    (answer as unknown as Record<string, TrendsResponse>)[part] = response;
  }
  return answer;
}
