// Who may share a trends answer. Runs share Google's answers through the trends
// queue: a request's job is keyed by the exact request and the UTC day, so a
// second run asking the same that day is answered without a request to Google.
// Shared across accounts, that cache would tell: an account that researched
// "padel court bookings" privately at 10:00 makes the same request of another
// account at 11:00 come back at once, with provenance from 10:00. So the cache
// is keyed by the exact request and, for an account's private research, by the
// account too, unless every term of the request is public:
//   - public runs (published to the catalogue) share: their terms are published anyway;
//   - a private run's requests are its account's alone (its own steps and runs still share them);
//   - a request of public terms only (the anchor) is shared by all.
// An exact-request key was chosen over a cache of terms: an answer is never
// served to a request that did not ask for it, so nothing of another request's
// terms (the other items of a comparison) can come with it.
import type { TrendsRequest } from '../domain/trends/answers.js';

/** Every search term a request names. */
export function termsOf(request: TrendsRequest): string[] {
  switch (request.kind) {
    case 'interestOverTime':
    case 'interestByRegion':
    case 'explore':
    case 'searchVolume':
      return request.keywords;
    case 'relatedQueries':
    case 'relatedTopics':
      return [request.keyword];
    case 'autocomplete':
      return [request.term];
    case 'trendingFeed':
      return [];
  }
}

/** The cache scope of a request of a run owned privately by `ownerAccountId` (null: a public run); undefined: shared. */
export function trendsScopeOf(request: TrendsRequest, ownerAccountId: string | null, publicTerms: ReadonlySet<string>): string | undefined {
  if (ownerAccountId === null) return undefined;
  const terms = termsOf(request);
  return terms.every((t) => publicTerms.has(t.toLowerCase())) ? undefined : ownerAccountId;
}
