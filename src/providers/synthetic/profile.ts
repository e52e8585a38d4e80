// A simulated world for demos and load tests. Plain data
// (src/providers/registry.ts lists it); the provider is beside it.
import type { ProviderProfile } from '../../domain/trends/provider-profile.js';

export const synthetic = {
  name: 'synthetic',
  kind: 'simulated',
  summary: 'a simulated world for demos and load tests, never real data',
  pacing: 'none: generated in the asking process (SYNTHETIC_LATENCY_MS per answer)',
  capabilities: ['series', 'regions', 'cities', 'relatedQueries', 'relatedTopics', 'autocomplete', 'trendingFeed'],
  termsPerRequest: 5,
  paid: false,
  priceUsd: {},
  source: 'a simulated world (synthetic provider), never real search data',
  publicName: 'the simulated world',
  listedBy: 'the simulated world (synthetic)',
  settings: (read) => ({
    /** Each answer takes this long (load and chaos tests: runs then last as long as real ones, in proportion). */
    latencyMs: read.integer('SYNTHETIC_LATENCY_MS', 0, 0, 60_000),
  }),
} as const satisfies ProviderProfile<'synthetic'>;
