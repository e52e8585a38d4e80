// DataForSEO is asked directly, with its pace, day's answers and bill in Redis (../paid-gateway.ts).
import type { GatewayFactory } from '../gateway-factory.js';
import { PaidTrendsGateway } from '../paid-gateway.js';
import { dataforseo } from './profile.js';
import type { DataForSeoSection } from './profile.js';
import { DataForSeoProvider } from './provider.js';

/** Google Ads' live endpoints take 12 requests a minute per account (DataForSEO's help center): one under it. */
export const ADS_TASKS_PER_MINUTE = 11;

export const createGateway: GatewayFactory<DataForSeoSection> = ({ settings, redis, keys, logger, purpose }) => {
  const { login, password, apiUrl, requestTimeoutMs, requestsPerMinute, retryMs } = settings;
  if (!login || !password) throw new Error('dataforseo is named but DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD are not set');
  if (!redis || !keys) throw new Error('the dataforseo provider needs Redis (its pace, day answers and bill)');
  return new PaidTrendsGateway({
    provider: new DataForSeoProvider({ login, password, apiUrl, requestTimeoutMs }),
    redis,
    keys,
    pace: { explore: requestsPerMinute, searchVolume: ADS_TASKS_PER_MINUTE },
    logger,
    purpose,
    retryMs,
    scope: `${apiUrl}|${login}`,
    askingMs: requestTimeoutMs + 5_000,
    source: dataforseo.publicName,
  });
};
