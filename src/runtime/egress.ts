// The routes to Google as every process sees them: workers send through them,
// the web process and `insights budget` report their pace and state.
import type { Config } from '../config.js';
import { routesFrom } from '../trends/egress.js';
import { EgressPool, type EgressPoolOptions } from '../trends/egress-pool.js';
import type { Resources } from './resources.js';

/** The routes to Google and their shared pace, cooldowns and probes (direct, or the proxies of TRENDS_PROXY_URLS). */
export function egressPoolFor(resources: Resources, config: Config): EgressPool {
  return new EgressPool(resources.redis, resources.redisKeys.trendsPool, routesFrom(config.trends.proxyUrls), egressPoolOptions(config));
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
  };
}
