// The gate in front of every /api route, as small steps in order (one hook): who is
// asking (authenticate.ts), what the key may do (authorize.ts),
// the account's quota and usage (quota.ts), where the request's reads go
// (read-routing.ts); then the response cache (a hit never reaches the
// handler; ../plugins/response-cache.plugin.ts).
import type { FastifyInstance } from 'fastify';
import type { ApiKeyCache } from '../../api-keys/api-key-cache.js';
import type { Db } from '../../db/connection.js';
import type { ReadRouter } from '../../db/read-router.js';
import type { RedisKeys } from '../../redis/keys.js';
import type { UnknownKeyLimiter } from '../unknown-key-limiter.js';
import { authenticate } from './authenticate.js';
import { authorize } from './authorize.js';
import { enforceQuota, type QuotaDeps } from './quota.js';
import { routeReads } from './read-routing.js';
import { responseCachePlugin } from '../plugins/response-cache.plugin.js';
import type { ResponseCache } from '../response-cache.js';

export interface ApiGuardDeps extends QuotaDeps {
  /** The primary: where reads go without a replica. */
  db: Db;
  redisKeys: RedisKeys;
  apiKeys: ApiKeyCache;
  responseCache: ResponseCache;
  failedAuth?: UnknownKeyLimiter;
  /** Reads from a replica when it is far enough along (DATABASE_READ_URL); without it, the primary. */
  readRouter?: ReadRouter;
}

export function registerApiGuard(app: FastifyInstance, deps: ApiGuardDeps): void {
  const steps = [authenticate(deps), authorize(), enforceQuota(deps), routeReads(app, deps)];
  // A callback hook: steps that have nothing to wait for cost no promise.
  app.addHook('onRequest', (request, reply, done) => {
    const run = (from: number): void => {
      for (let i = from; i < steps.length; i += 1) {
        let waiting: Promise<void> | void;
        try {
          waiting = steps[i]!(request, reply);
        } catch (error) {
          done(error as Error);
          return;
        }
        if (waiting) {
          waiting.then(() => run(i + 1), done);
          return;
        }
      }
      done();
    };
    run(0);
  });
  responseCachePlugin(app, deps);
}
