import type { Config } from '../config.js';
import { GoogleTrendsProvider } from './google.provider.js';
import { ReplayTrendsProvider } from './replay.provider.js';
import { SyntheticTrendsProvider } from './synthetic.provider.js';
import type { TrendsProvider } from './types.js';

export function createTrendsProvider(config: Config): TrendsProvider {
  switch (config.trendsProvider) {
    case 'google':
      return new GoogleTrendsProvider();
    case 'replay':
      return new ReplayTrendsProvider(config.recordedTrendsDir);
    case 'synthetic':
      return new SyntheticTrendsProvider();
  }
}
