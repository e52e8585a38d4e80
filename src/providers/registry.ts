import type { Config } from '../config.js';
import { answeringProvider, providersOf } from '../domain/trends/capabilities.js';
import { RECORDED_ANCHOR, ReplayTrendsProvider } from './replay/provider.js';
import { SyntheticTrendsProvider } from './synthetic/provider.js';
import type { TrendsProvider } from '../trends/types.js';

/** A provider of local data, asked directly. Live Google is never made here: it goes through the trends queue (trends-fetch). */
export function createLocalTrendsProvider(name: 'replay' | 'synthetic', config: Config): TrendsProvider {
  switch (name) {
    case 'replay':
      return new ReplayTrendsProvider(config.trends.recordedDir);
    case 'synthetic':
      return new SyntheticTrendsProvider(undefined, config.trends.syntheticLatencyMs);
  }
}

/** The term every idea is compared with (step compare_anchor, and steps interest_by_country and interest_by_city when comparable) unless TRENDS_ANCHOR names one. */
export const DEFAULT_ANCHOR = 'weather';

/** `providers`: a run's list (e.g. "replay+dataforseo"); the anchor is the one its series provider can answer. */
export function anchorTermFor(providers: string, configured: string | undefined): string {
  return configured ?? (answeringProvider(providersOf(providers), 'series') === 'replay' ? RECORDED_ANCHOR : DEFAULT_ANCHOR);
}
