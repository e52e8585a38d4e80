// The routes to Google as every process sees them: workers send through them,
// the web process and `insights budget` report their pace and state.
import type { Config } from '../config.js';
import { routesFrom, type EgressRoute } from '../providers/google/egress/routes.js';
import { EgressPool, type EgressPoolOptions } from '../providers/google/egress/egress-pool.js';
import type { Redis } from '../redis/connection.js';
import type { Resources } from './resources.js';

/** The routes to Google and their shared pace, cooldowns and probes (direct, or the proxies of TRENDS_PROXY_URLS). */
export function egressPoolFor(resources: Resources, config: Config): EgressPool {
  return egressPoolOf(
    resources.redis,
    resources.redisKeys.trendsPool,
    routesFrom(config.trends.proxyUrls, config.trends.consentCookies),
    config,
  );
}

/** A pool over the given routes, on a Redis of the caller's (`insights google check` opens one that may be away). */
export function egressPoolOf(redis: Redis, poolKey: string, routes: EgressRoute[], config: Config): EgressPool {
  return new EgressPool(redis, poolKey, routes, egressPoolOptions(config));
}

/** The pool's settings, from the configuration. */
export function egressPoolOptions(config: Config): EgressPoolOptions {
  return {
    requestsPerMinute: config.trends.requestsPerMinute,
    cooldownMs: config.trends.cooldownMs,
    cooldownMaxMs: config.trends.cooldownMaxMs,
    refusedPauseMs: config.trends.refusedPauseMs,
    requestTimeoutMs: config.trends.requestTimeoutMs,
    embedGapMs: config.trends.embedGapMs,
    embedCooldownMs: config.trends.embedCooldownMs,
    exploreBurst: config.trends.exploreBurst,
    exploreRefillPerMinute: config.trends.exploreRefillPerMinute,
  };
}
