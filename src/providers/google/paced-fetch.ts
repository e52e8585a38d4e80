// One request to live Google through the egress pool: the only code that asks
// Google anything (with `insights google check`). The trends-fetch job
// (jobs/trends-fetch.job.ts) runs it and turns its outcome into BullMQ's terms.
// Each request takes an egress route from the pool, asks through it at the
// route's pace, and hands what Google answered to the pool. Each outcome has
// its own handling:
//
//   served, empty, no data  returned (the steps record what Google served);
//   blocked                 the route's endpoint family Google blocked cools
//                           down (at least as long as Google's Retry-After),
//                           its other families do not; the job waits it out,
//                           and when the cooldown ends one job probes;
//   rate-limited (explore)  a plain 429 where the cookie gate hands out cookies:
//                           the route's explore bucket is empty and its refill
//                           learned; the job waits a token's time;
//   over the embed quota    the route's embed pages wait; the job waits with
//                           them (its other requests are not held up);
//   refused (400)           the route pauses and the job goes to another route;
//   EU consent page         the route is set aside (until it has a consent
//                           cookie) and the job goes to another route at once;
//                           refused on every route, it fails with a clear message;
//   changed shape           fails for good with a clear message (Google changed);
//   no answer (network)     thrown: retried with backoff, spending an attempt;
//   a name not found (DNS)  on a route Google has never answered, fails at
//                           once (retrying cannot help until DNS or the network
//                           is fixed); else retried, the job saying so in its
//                           progress (issue 47: 77 s of silence before).
import type { Logger } from '../../logger.js';
import { googleBlocks, trendsRequests } from '../../observability/metrics.js';
import { RouteWaitError, type EgressPool } from './egress/egress-pool.js';
import { unresolvedHost, type EgressRoute } from './egress/routes.js';
import type { GoogleTrendsProvider } from './provider.js';
import { describeRequest, MalformedResponseError, NotRecordedError, RateLimitedError, RefusedError } from '../contract.js';
import type { TrendsRequest, TrendsResponse } from '../../domain/trends/answers.js';
import { ConsentRequiredError, EmbedOverQuotaError } from './errors.js';
import { firstFamilyOf } from './families.js';

export interface PacedFetchDeps {
  provider: GoogleTrendsProvider;
  pool: EgressPool;
  logger: Logger;
}

/** What a waiting trends job says in its progress: until when, and why (shown with the waiting research run). */
export interface TrendsWait {
  until: number;
  reason: string;
}

export type PacedFetchOutcome =
  | { kind: 'answer'; response: TrendsResponse }
  /** Wait this long, spending no attempt (a route refused it: `refusedBy` is the new list to keep). */
  | { kind: 'wait'; ms: number; reason: string; refusedBy?: string[] }
  /** Fails for good: asking again cannot help. */
  | { kind: 'fail'; message: string }
  /** No answer, for a reason worth telling the waiting runs at once (`reason`): retried with backoff, spending an attempt. */
  | { kind: 'retry'; reason: string; error: Error };

const clock = (ms: number) => new Date(Date.now() + ms).toISOString().slice(11, 16);

/** Asks once, through a route the pool leases to `jobId`. An error not listed above (no answer: the network) is thrown, to be retried. */
export async function fetchThroughPool(
  deps: PacedFetchDeps,
  jobId: string,
  request: TrendsRequest,
  refusedBy: readonly string[],
): Promise<PacedFetchOutcome> {
  // Related lists are asked of explore's widget first, and of the embed flow only when its quota allows:
  // a route whose embed pages wait still takes them.
  const lease = await deps.pool.acquire(jobId, refusedBy, Date.now(), false, firstFamilyOf(request));
  if ('refusedEverywhere' in lease) {
    // Every route refused the same request: it is the request, not the routes.
    await deps.pool.clearRefusals(refusedBy);
    return {
      kind: 'fail',
      message: `Google Trends refused ${describeRequest(request)} (HTTP 400) on every egress route (${refusedBy.join(', ')}): the request itself is at fault, or every proxy alters it. Check the proxies (pytrends #602), then \`insights runs retry\`.`,
    };
  }
  if ('waitMs' in lease) {
    const why =
      lease.reason === 'cooling'
        ? `every route is cooling down after a block (next ends ${clock(lease.waitMs)} UTC)`
        : lease.reason === 'probe'
          ? 'a probe is asking whether Google still blocks us'
          : lease.reason === 'refused'
            ? 'routes are paused after a refusal'
            : lease.reason === 'embed_quota'
              ? `every route's embed pages (related lists) are over Google's embed quota (next opens ${clock(lease.waitMs)} UTC)`
              : "at the routes' request rate";
    return { kind: 'wait', ms: lease.waitMs, reason: why };
  }
  const { route } = lease;
  try {
    const response = await deps.provider.fetch(request, route, { ...deps.pool.pacers(route, jobId), jar: deps.pool.cookies });
    await deps.pool.answered(route, jobId, 'answers', { embed: response.provenance?.via === 'embed' });
    if (response.provenance?.embedOverQuota) {
      // Explore's list was empty and the embed flow over quota: the list stands; the route's embed pages close.
      const waitMs = await deps.pool.embedOverQuota(route, jobId);
      deps.logger.info(
        { queue: 'trends', jobId, route: route.name, waitMs },
        "Google Trends' embed quota is spent on this route: explore's (empty) related list is the answer",
      );
    }
    trendsRequests.inc({ outcome: 'served', route: route.name });
    await noteLabel(deps, route, response.provenance?.userType);
    return { kind: 'answer', response };
  } catch (error) {
    if (error instanceof RouteWaitError) {
      // The route closed (a block another job met) or its slot is far: wait, spending nothing. Set aside for
      // Google's consent page (another job met it while this one waited): another route, at once.
      await deps.pool.release(route, jobId, false);
      return { kind: 'wait', ms: error.reason === 'consent' ? 0 : error.waitMs, reason: error.message };
    }
    await noteLabel(deps, route, (error as { userType?: string }).userType);
    if (error instanceof RateLimitedError && error.rateLimit && error.family === 'explore') {
      trendsRequests.inc({ outcome: 'rate_limited', route: route.name });
      const { waitMs, refillPerMinute } = await deps.pool.exploreRateLimited(route, jobId);
      deps.logger.info(
        { queue: 'trends', jobId, route: route.name, waitMs, refillPerMinute },
        "Google Trends' explore limit is reached on this route (a plain 429, no Retry-After): its explore bucket is empty, refilled at the rate learned",
      );
      return {
        kind: 'wait',
        ms: waitMs,
        reason: `route ${route.name}'s explore requests wait for Google's rate limit (${refillPerMinute.toFixed(0)} a minute)`,
      };
    }
    if (error instanceof RateLimitedError) {
      trendsRequests.inc({ outcome: 'blocked', route: route.name });
      // Blocked after the job's first request was answered: the probes it holds of what was answered are over.
      if (error.family !== undefined && error.family !== firstFamilyOf(request))
        await deps.pool.answeredBeforeBlock(route, jobId, error.family);
      googleBlocks.inc({ route: route.name, kind: error.block, retry_after: error.retryAfterMs === undefined ? 'no' : 'yes' });
      const { cooldownMs, started } = await deps.pool.blocked(route, jobId, Date.now(), {
        kind: error.block,
        retryAfterMs: error.retryAfterMs,
        ...(error.family ? { family: error.family } : {}),
      });
      if (started) {
        deps.logger.warn(
          {
            queue: 'trends',
            jobId,
            route: route.name,
            cooldownMs,
            block: error.block,
            family: error.family,
            retryAfterMs: error.retryAfterMs,
            probe: lease.probe,
          },
          "Google Trends blocked this route's endpoint family; it cools down (the route's other families go on), then one request probes",
        );
      }
      // A block of the family this request begins with: the pool routes a job around it (a route must have its first
      // family open), so the job is asked again at once and waits only if every route has that family cooling.
      // A block met later in the job (its widgets, after an explore) still waits here: asking again would spend an explore.
      const elsewhere = error.family !== undefined && error.family === firstFamilyOf(request);
      return {
        kind: 'wait',
        ms: elsewhere ? 0 : cooldownMs,
        reason: `route ${route.name}${error.family ? `'s ${error.family} requests are` : ' is'} cooling down after a block until ${clock(cooldownMs)} UTC${elsewhere ? '; trying another route' : ''}`,
      };
    }
    if (error instanceof EmbedOverQuotaError) {
      trendsRequests.inc({ outcome: 'over_quota', route: route.name });
      const waitMs = await deps.pool.embedOverQuota(route, jobId);
      deps.logger.info(
        { queue: 'trends', jobId, route: route.name, waitMs },
        "Google Trends' embed quota is spent on this route: its related lists wait",
      );
      return {
        kind: 'wait',
        ms: waitMs,
        reason: `route ${route.name}'s embed pages are over Google's embed quota until ${clock(waitMs)} UTC`,
      };
    }
    if (error instanceof ConsentRequiredError) {
      trendsRequests.inc({ outcome: 'consent', route: route.name });
      const asideMs = await deps.pool.consentRequired(route, jobId);
      deps.logger.error(
        { queue: 'trends', jobId, route: route.name, asideMs, consentCookieSent: route.consentCookie !== undefined },
        route.consentCookie
          ? `Google answers route ${route.name} with its EU consent page although its consent cookie (TRENDS_CONSENT_COOKIES) was sent: the route is set aside; renew the cookie from a browser on that route`
          : `Google answers route ${route.name} with its EU consent page (consent.google.com): the route is set aside and its requests go to the other routes; set TRENDS_CONSENT_COOKIES="${route.name}=SOCS=…" (docs/operations.md, "EU consent") or remove the route`,
      );
      return { kind: 'wait', ms: 0, reason: `route ${route.name} is set aside (Google's EU consent page); trying another route` };
    }
    if (error instanceof RefusedError) {
      trendsRequests.inc({ outcome: 'refused', route: route.name });
      await deps.pool.refused(route, jobId);
      deps.logger.warn(
        { queue: 'trends', jobId, route: route.name, err: error },
        'Google Trends refused a request on this route (400); the route pauses and the request goes to another',
      );
      return { kind: 'wait', ms: 0, reason: `route ${route.name} refused it; trying another route`, refusedBy: [...refusedBy, route.name] };
    }
    if (error instanceof MalformedResponseError) {
      trendsRequests.inc({ outcome: 'changed_shape', route: route.name });
      await deps.pool.answered(route, jobId, 'changed');
      deps.logger.error(
        { queue: 'trends', jobId, route: route.name, err: error },
        'Google Trends answered in a shape we do not know: the request fails for good',
      );
      return { kind: 'fail', message: error.message };
    }
    if (error instanceof NotRecordedError) return { kind: 'fail', message: error.message };
    trendsRequests.inc({ outcome: 'error', route: route.name });
    await deps.pool.release(route, jobId, true);
    const dns = unresolvedHost(error, route);
    if (dns) {
      const said = `cannot reach ${dns.proxy ? `the egress proxy ${route.name}` : 'Google'} (DNS: ${dns.host} not found)`;
      if (!(await deps.pool.hasHadAnswer(route))) {
        deps.logger.error({ queue: 'trends', jobId, route: route.name, err: error }, `${said}; the route has never had an answer`);
        return {
          kind: 'fail',
          message: `${said} through route ${route.name}, which has never had an answer from Google: retrying cannot help until DNS or the network is fixed (${dns.code}). Check them and TRENDS_PROXY_URLS (\`insights google check\`), then \`insights runs retry RUN_ID\`.`,
        };
      }
      return {
        kind: 'retry',
        reason: said,
        error: Object.assign(new Error(`${said} through route ${route.name} (${dns.code})`), { code: dns.code }),
      };
    }
    throw error;
  }
}

/** Keeps how Google labelled the route's client, and warns when the label changes: the earliest sign of degraded answers. */
async function noteLabel(deps: PacedFetchDeps, route: EgressRoute, userType: string | undefined): Promise<void> {
  // Embed tokens carry labels of their own (USER_TYPE_EMBED …): the route's label is the explore tokens'.
  if (!userType || userType.startsWith('USER_TYPE_EMBED')) return;
  const { changed, before } = await deps.pool.labelled(route, userType);
  if (changed) {
    deps.logger.warn(
      { queue: 'trends', route: route.name, userType, before },
      `Google now labels route ${route.name}'s client ${userType} (was ${before}): its answers may be degraded from here on; run \`insights google check\``,
    );
  }
}
