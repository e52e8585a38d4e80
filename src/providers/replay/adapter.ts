// Recorded answers are read from files, asked directly.
import { DirectTrendsGateway } from '../gateway.js';
import type { GatewayFactory } from '../gateway-factory.js';
import type { replay } from './profile.js';
import { ReplayTrendsProvider } from './provider.js';

export const createGateway: GatewayFactory<ReturnType<typeof replay.settings>> = ({ settings }) =>
  new DirectTrendsGateway(new ReplayTrendsProvider(settings.recordedDir));
