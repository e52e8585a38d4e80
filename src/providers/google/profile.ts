// Live Google Trends, what it answers and how it is asked. Plain data
// (src/providers/registry.ts lists it); the client, format and pacing are beside it.
import type { ProviderProfile } from '../../domain/trends/provider-profile.js';

export const google = {
  name: 'google',
  kind: 'live',
  summary: 'live Google Trends through its unofficial web endpoints: free, paced, blocked at will',
  pacing:
    'through the trends queue: TRENDS_REQUESTS_PER_MINUTE HTTPS requests per egress route across every worker, each route cooling down after a block',
  capabilities: ['series', 'regions', 'cities', 'relatedQueries', 'relatedTopics', 'autocomplete', 'trendingFeed'],
  termsPerRequest: 5,
  paid: false,
  priceUsd: {},
  source: 'live Google Trends',
  publicName: 'Google Trends',
  listedBy: "Google's explore page",
  queued: true,
  // HTTPS requests a research run makes, measured by bench:google (2026-11-25): 16.75 batched and 27.17 one
  // keyword per request, rounded up.
  requestsPerRun: { shared: 17, batched: 17, single: 28 },
  // Its pace, routes and deadlines are the trends section's (TRENDS_*: config.trends), which the egress pool reads.
  settings: () => ({}),
} as const satisfies ProviderProfile<'google'>;
