// Every process that asks for search data builds its gateways here: a run's
// (or the refresh's) provider list becomes one routed gateway (provider-router.ts)
// over one gateway per provider: live Google through the trends queue (given
// by the caller, which owns the queue), replay and synthetic directly,
// DataForSEO directly with its pace, day's answers and bill in Redis.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { providersOf, type ProviderName } from '../domain/trends/capabilities.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import { DataForSeoProvider } from './dataforseo/provider.js';
import { createLocalTrendsProvider } from './registry.js';
import { PaidTrendsGateway } from './dataforseo/gateway.js';
import { RoutedTrendsGateway } from './router.js';
import { DirectTrendsGateway, type TrendsGateway, type TrendsPurpose } from '../research/trends-gateway.js';

/** Google Ads' live endpoints take 12 requests a minute per account (DataForSEO's help center): one under it. */
export const ADS_TASKS_PER_MINUTE = 11;

export interface ProviderGatewayDeps {
  config: Config;
  logger: Logger;
  /** Needed when a list names dataforseo (its pace, cache and bill). */
  redis?: Redis;
  keys?: RedisKeys;
  /** Live Google for a purpose; a process without the trends queue leaves it out (then Google is refused). */
  google?: (purpose: TrendsPurpose) => TrendsGateway;
}

export type GatewayFor = (label: string, purpose?: TrendsPurpose) => RoutedTrendsGateway;

export function providerGateways(deps: ProviderGatewayDeps): GatewayFor {
  const direct = new Map<string, TrendsGateway>();
  const one = (provider: ProviderName, purpose: TrendsPurpose): TrendsGateway => {
    if (provider === 'google') {
      if (!deps.google) throw new Error('live Google is asked through the trends queue, which this process has not opened');
      return deps.google(purpose);
    }
    const key = `${provider}|${purpose}`;
    let gateway = direct.get(key);
    if (gateway) return gateway;
    if (provider === 'dataforseo') {
      const { login, password, apiUrl, requestTimeoutMs, requestsPerMinute, retryMs } = deps.config.dataforseo;
      if (!login || !password) throw new Error('dataforseo is named but DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD are not set');
      if (!deps.redis || !deps.keys) throw new Error('the dataforseo provider needs Redis (its pace, day answers and bill)');
      gateway = new PaidTrendsGateway({
        provider: new DataForSeoProvider({ login, password, apiUrl, requestTimeoutMs }),
        redis: deps.redis,
        keys: deps.keys,
        pace: { explore: requestsPerMinute, searchVolume: ADS_TASKS_PER_MINUTE },
        logger: deps.logger,
        purpose,
        retryMs,
        scope: `${apiUrl}|${login}`,
        askingMs: requestTimeoutMs + 5_000,
      });
    } else {
      gateway = new DirectTrendsGateway(createLocalTrendsProvider(provider, deps.config));
    }
    direct.set(key, gateway);
    return gateway;
  };
  const routed = new Map<string, RoutedTrendsGateway>();
  return (label, purpose = 'research') => {
    const key = `${label}|${purpose}`;
    let gateway = routed.get(key);
    if (!gateway) routed.set(key, (gateway = new RoutedTrendsGateway(providersOf(label), (p) => one(p, purpose))));
    return gateway;
  };
}
