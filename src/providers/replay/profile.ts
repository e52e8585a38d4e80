// Google Trends answers recorded once and served again. Plain data
// (src/providers/registry.ts lists it); the provider is beside it.
import type { ProviderProfile } from '../../domain/trends/provider-profile.js';

export const replay = {
  name: 'replay',
  kind: 'recorded',
  summary: 'Google Trends answers recorded in 2022–2023: only what was recorded',
  pacing: 'none: read from files, asked directly',
  capabilities: ['series', 'regions', 'cities', 'relatedQueries', 'relatedTopics', 'autocomplete', 'trendingFeed'],
  termsPerRequest: 5,
  paid: false,
  priceUsd: {},
  source: 'recorded real Google Trends answers (replay)',
  publicName: 'the recorded Google Trends answers',
  listedBy: 'Google Trends answers recorded (replay)',
  // A term the recordings compare every idea with (data/google-trends-recorded).
  anchor: 'bagel',
  settings: (read) => ({
    /** Recorded Google Trends exchanges it serves; the repository's own by default. */
    recordedDir: read.path('RECORDED_TRENDS_DIR', 'data/google-trends-recorded'),
  }),
} as const satisfies ProviderProfile<'replay'>;
