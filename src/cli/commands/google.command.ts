import type { Command } from 'commander';
import type { Config } from '../../config.js';
import { createRedis, DEFAULT_REDIS_URL, waitForRedis, type Redis } from '../../redis/connection.js';
import { redisKeys } from '../../redis/keys.js';
import { egressPoolOf } from '../../runtime/egress.js';
import { routesFrom, type EgressRoute } from '../../providers/google/egress/routes.js';
import type { EgressPool } from '../../providers/google/egress/egress-pool.js';
import type { Pacer } from '../../providers/google/client.js';
import { checkExitCode, checkGoogle, checkSummary, checkVerdict } from '../../providers/google/check.js';
import { anchorTermFor } from '../../providers/registry.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { print, printJson, table, UsageError } from '../output.js';

export function registerGoogleCommands(program: Command, context: () => CliContext): void {
  const google = program.command('google').description(describeCommand('google'));
  google
    .command('check')
    .description(
      "A live canary: one request of each kind the product sends (the home page for the cookie, the explore widgets, the embed flow's related queries, autocomplete, the trending feed), through the first egress route, each with how Google answered, its latency and the label Google gives the client; exit codes: 0 every kind answers as expected; 1 a kind research or discovery needs is broken (Google answered differently, or blocked a family: the summary names the blocked families and those that answer); 2 a usage error (a bad option or --geo); 3 the route's pace stopped the check before it asked everything (the route is cooling down or busy: try again later); 4 Google could not be reached at all (DNS, connection, proxy); 5 the route answered with Google's EU consent page (set TRENDS_CONSENT_COOKIES for it)",
    )
    .option('--geo <country>', 'country of the explore and of the trending feed', 'US')
    .option('--json', 'print the result as one JSON object')
    .action(async (options: { geo: string; json?: boolean }) => {
      const geo = options.geo.trim().toUpperCase();
      if (!/^[A-Z]{2}$/.test(geo)) throw new UsageError(`--geo must be a two-letter country code such as US (got "${options.geo}")`);
      const { config } = context();
      const [route] = routesFrom(config.trends.proxyUrls, config.trends.consentCookies);
      const paced = await pacersFor(config, route!);
      let result;
      try {
        result = await checkGoogle({
          route: route!,
          geo,
          term: anchorTermFor('google', config.trends.anchor),
          timeoutMs: config.trends.requestTimeoutMs,
          pacers: paced.pacers,
        });
        // A block the check met is the route's, as for any job: the workers wait it out instead of following it in.
        if (result.blocked) await paced.pool?.blocked(route!, paced.jobId, Date.now(), result.blocked);
        if (result.overQuota) await paced.pool?.embedOverQuota(route!, paced.jobId);
      } finally {
        paced.redis?.disconnect();
      }
      if (options.json) {
        printJson(result);
      } else {
        print(`Google Trends, ${result.checkedAt}, via ${result.route}, geo ${result.geo}, term "${result.term}"; ${paced.how}`);
        print(
          `How Google labels this client: ${result.userType.explore ?? '(no explore token)'} (explore), ${result.userType.embed ?? '(no embed token)'} (embed)`,
        );
        const { verdict } = checkVerdict(result);
        print(
          table(
            result.kinds.map((k) => ({
              kind: k.kind,
              outcome: k.outcome.replace('_', ' '),
              ms: k.ms ?? '',
              'needed by': k.neededBy,
              // Nothing of Google's was read when it could not be reached: a kind is unanswered, not broken.
              '': k.broken ? (verdict === 'unreachable' ? 'no answer' : 'BROKEN') : 'ok',
              detail: k.detail.slice(0, 140),
            })),
          ),
        );
        print(checkSummary(result));
      }
      const code = checkExitCode(result);
      if (code !== 0) process.exitCode = code;
    });
}

/**
 * The check's pace: the route's own, shared with the workers through Redis, when Redis answers
 * (a route cooling down stops the check before it sends anything); else this process's own pace
 * at the configured rate, so the check alone never bursts at Google.
 */
async function pacersFor(
  config: Config,
  route: EgressRoute,
): Promise<{ pacers?: { pace: Pacer; paceEmbed: Pacer }; pool?: EgressPool; redis?: Redis; jobId: string; how: string }> {
  const jobId = `cli-google-check-${Date.now()}`;
  // Not the composition root's: the canary must run with Postgres and Redis away (withServices would fail without them),
  // so it opens a Redis of its own that may not answer, and paces itself alone when it does not.
  const target = config.redis.clusterNodes ? { cluster: config.redis.clusterNodes } : (config.redis.url ?? DEFAULT_REDIS_URL);
  const redis = createRedis(target, 'client');
  try {
    await waitForRedis(redis, target, 1_500);
    const pool = egressPoolOf(redis, redisKeys(config.redis.prefix).trendsPool, [route], config);
    return { pacers: pool.pacers(route, jobId), pool, redis, jobId, how: "inside the route's pace (shared with the workers)" };
  } catch {
    redis.disconnect();
    const gap = config.trends.requestsPerMinute > 0 ? 60_000 / config.trends.requestsPerMinute : 0;
    let next = 0;
    const wait = (ms: number) => async () => {
      const at = Math.max(Date.now(), next);
      next = at + ms;
      if (at > Date.now()) await new Promise((r) => setTimeout(r, at - Date.now()));
    };
    const pace = wait(gap);
    return {
      pacers: {
        pace,
        paceEmbed: async () => {
          await pace();
          await new Promise((r) => setTimeout(r, Math.max(0, config.trends.embedGapMs - gap)));
        },
      },
      jobId,
      how: `Redis not reachable: paced by this process alone (${config.trends.requestsPerMinute} requests a minute)`,
    };
  }
}
