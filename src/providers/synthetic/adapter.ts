// The simulated world is generated in the asking process, asked directly.
import { DirectTrendsGateway } from '../gateway.js';
import type { GatewayFactory } from '../gateway-factory.js';
import type { synthetic } from './profile.js';
import { SyntheticTrendsProvider } from './provider.js';

export const createGateway: GatewayFactory<ReturnType<typeof synthetic.settings>> = ({ settings }) =>
  new DirectTrendsGateway(new SyntheticTrendsProvider(undefined, settings.latencyMs));
