// A provider that bills or meters its answers (DataForSEO, the Trends API) asked
// directly, without the trends queue: its answers come in seconds and it has
// no egress routes to protect. What the queue gives Google, this gives it, in
// Redis, across all processes:
//   once a day   the same request on the same UTC day is answered from the
//                day's answer (steps related_queries_top and related_queries_rising share one related-queries task);
//   its pace     requests per minute per endpoint under the limits its adapter
//                passes (PaidPace): past them the asking job sleeps to the
//                next minute without spending an attempt;
//   its refusals a wrong password, no money, its per-minute limit, its own
//                outage: the job waits with the operator's message (the run
//                says why it waits, `insights budget` and /metrics too); only
//                a request at fault or a changed shape fails;
//   its bill     requests, dollars and metered units per UTC day and purpose,
//                for `insights budget` and /metrics (research/provider-spend.ts).
import { createHash, randomUUID } from 'node:crypto';
import { SCRIPTS } from '../redis/scripts.js';
import type { Logger } from 'pino';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import { providerAccountProblem, providerCost, providerRequests } from '../observability/metrics.js';
import { utcDay } from '../domain/utc-day.js';
import {
  describeRequest,
  MalformedResponseError,
  NotAvailableError,
  ProviderAccountError,
  ProviderUnavailableError,
  RateLimitedError,
  RefusedError,
  type TrendsProvider,
} from './contract.js';
import { requestKey, type TrendsRequest, type TrendsResponse } from '../domain/trends/answers.js';
import {
  failureOf,
  TrendsFailedError,
  WaitingForTrendsError,
  type TrendsGateway,
  type TrendsPurpose,
  type TrendsWaiter,
} from './gateway.js';

/** Tasks a minute per endpoint. */
export interface PaidPace {
  explore: number;
  searchVolume: number;
}
const DAY_MS = 24 * 3_600_000;

const endpointOf = (request: TrendsRequest) => (request.kind === 'searchVolume' ? 'searchVolume' : 'explore');
const MICRO = 1_000_000;
/** How long until the next minute's pace opens (a margin after it, for clocks a little apart). */
export const untilNextMinute = (now = Date.now()) => 60_000 - (now % 60_000) + 250;
// Gives up "being asked" only for the job that holds it (token).
const { release: RELEASE } = SCRIPTS.paidGateway;

export interface PaidGatewayDeps {
  /** `unanswerable`: what it would refuse without sending anything, checked before its pace is spent. */
  provider: TrendsProvider & { unanswerable?(request: TrendsRequest): Error | null };
  redis: Redis;
  keys: RedisKeys;
  pace: PaidPace;
  logger: Logger;
  purpose: TrendsPurpose;
  /** How long a job waits when the account is refused (an operator must act) or the provider is down; the cap of a pace wait. */
  retryMs: number;
  /** What the day's answers are kept under besides the request: the API address and login (a sandbox's answers are not production's). */
  scope: string;
  /** How long one job holds a request as being asked (longer than a request's deadline). */
  askingMs: number;
  /** Who a waiting run waits for, in its reason: the provider's profile's `publicName` ("DataForSEO"). */
  source: string;
}

export class PaidTrendsGateway implements TrendsGateway {
  private readonly source: string;
  constructor(private readonly deps: PaidGatewayDeps) {
    this.source = deps.source;
  }

  async fetch(request: TrendsRequest, options?: { waiter?: TrendsWaiter }): Promise<TrendsResponse> {
    const { provider, redis, keys, purpose } = this.deps;
    const name = provider.name;
    const endpoint = endpointOf(request);
    const counted = (outcome: string) => providerRequests.inc({ provider: name, endpoint, purpose, outcome });
    const day = utcDay(new Date());
    // The day's answer of this account at this address (a sandbox's answers are not production's).
    const answerKey = keys.providerAnswer(
      name,
      createHash('sha256')
        .update(`${this.deps.scope}|${day}|${requestKey(request)}`)
        .digest('hex')
        .slice(0, 32),
    );
    const cached = await redis.get(answerKey);
    if (cached !== null) {
      counted('cached');
      const answer = JSON.parse(cached) as TrendsResponse;
      // Paid for once: the second reader spent nothing.
      return {
        ...answer,
        provenance: {
          ...answer.provenance!,
          costUsd: 0,
          requests: 0,
          ...(answer.provenance?.dataPoints !== undefined ? { dataPoints: 0 } : {}),
        },
      };
    }
    // One asker at a time per request: a job that finds it being asked sleeps and reads the answer (paid once).
    const askingKey = `${answerKey}:asking`;
    const token = randomUUID();
    if ((await redis.set(askingKey, token, 'PX', this.deps.askingMs, 'NX')) === null) {
      counted('joined');
      throw new WaitingForTrendsError(describeRequest(request), 1_000, this.source, 'the same request is being asked by another job');
    }
    try {
      return await this.ask(request, options, { answerKey, day, counted });
    } finally {
      await RELEASE.run(redis, [askingKey], [token]);
    }
  }

  private async ask(
    request: TrendsRequest,
    options: { waiter?: TrendsWaiter } | undefined,
    { answerKey, day, counted }: { answerKey: string; day: string; counted: (outcome: string) => void },
  ): Promise<TrendsResponse> {
    const { provider, redis, keys, purpose } = this.deps;
    const name = provider.name;
    const endpoint = endpointOf(request);
    // What it would refuse without asking (a market it has no code for) spends none of its pace.
    const early = provider.unanswerable?.(request);
    if (early) throw await this.classified(early, request, counted);
    const minute = Math.floor(Date.now() / 60_000);
    const paceKey = keys.providerPace(name, endpoint, minute);
    const [[, taken]] = (await redis.multi().incr(paceKey).pexpire(paceKey, 120_000).exec()) as [[unknown, number], unknown];
    if (taken > this.deps.pace[endpoint]) {
      counted('paced');
      throw new WaitingForTrendsError(
        describeRequest(request),
        Math.min(untilNextMinute(), this.deps.retryMs),
        this.source,
        `${name}'s pace of ${this.deps.pace[endpoint]} ${endpoint} tasks a minute is taken`,
      );
    }
    let answer: TrendsResponse;
    try {
      answer = await provider.fetch(request);
    } catch (error) {
      throw await this.classified(error, request, counted);
    }
    const cost = answer.provenance?.costUsd ?? 0;
    // A metered provider's quota (the Trends API's data points), counted beside the dollars.
    const points = answer.provenance?.dataPoints ?? 0;
    // What was sent: a request the provider answered without asking (nothing it could ask) costs none.
    const sent = answer.provenance?.requests ?? 1;
    counted('answered');
    providerCost.inc({ provider: name, purpose }, cost);
    const spendKey = keys.providerSpend(name, day);
    // A research step says which run asks (its job id): the run's own bill, for the cost per run.
    const runId = options?.waiter ? /^(run_[A-Za-z0-9]+)-step-\d+$/.exec(options.waiter.jobId)?.[1] : undefined;
    const bill = redis.multi();
    if (runId) {
      const runKey = keys.providerRunSpend(name, runId);
      bill
        .hincrby(runKey, 'requests', sent)
        .hincrby(runKey, 'micro_usd', Math.round(cost * MICRO))
        .hincrby(runKey, 'points', points)
        .pexpire(runKey, 40 * DAY_MS);
    }
    await bill
      .set(answerKey, JSON.stringify(answer), 'PX', DAY_MS)
      .hincrby(spendKey, `${purpose}:requests`, sent)
      .hincrby(spendKey, `${purpose}:micro_usd`, Math.round(cost * MICRO))
      .hincrby(spendKey, `${purpose}:points`, points)
      .pexpire(spendKey, 40 * DAY_MS)
      .del(keys.providerProblem(name))
      .exec();
    for (const problem of ['credentials', 'balance', 'configuration']) providerAccountProblem.set({ provider: name, problem }, 0);
    return answer;
  }

  /** The error the asking job gets: a wait (with the reason it shows) unless retrying cannot help. */
  private async classified(error: unknown, request: TrendsRequest, counted: (outcome: string) => void): Promise<Error> {
    const { provider, redis, keys, logger } = this.deps;
    const what = describeRequest(request);
    if (error instanceof ProviderAccountError) {
      counted('account');
      providerAccountProblem.set({ provider: provider.name, problem: error.problem }, 1);
      // Said to the operator's log once per problem (until an answer clears it), and kept for `insights budget`.
      const said = await redis.set(
        keys.providerProblem(provider.name),
        JSON.stringify({ problem: error.problem, message: error.message, at: new Date().toISOString() }),
        'PX',
        DAY_MS,
        'GET',
      );
      if (said === null || (JSON.parse(said) as { message?: string }).message !== error.message)
        logger.error({ provider: provider.name, problem: error.problem }, error.message);
      return new WaitingForTrendsError(what, this.deps.retryMs, this.source, `${error.message}; waiting until it is fixed`);
    }
    if (error instanceof RateLimitedError) {
      counted('paced');
      return new WaitingForTrendsError(
        what,
        Math.min(error.retryAfterMs ?? untilNextMinute(), this.deps.retryMs),
        this.source,
        error.message,
      );
    }
    if (error instanceof ProviderUnavailableError) {
      counted('unavailable');
      logger.warn({ provider: provider.name, err: error }, 'paid provider unavailable; the job waits');
      return new WaitingForTrendsError(what, this.deps.retryMs, this.source, error.message);
    }
    // What it cannot answer for this request (a region's search volume): evidence not available, not a failure.
    if (error instanceof NotAvailableError) return new TrendsFailedError(error.message, false, true, failureOf(provider.name, error));
    if (error instanceof RefusedError || error instanceof MalformedResponseError) {
      counted('refused');
      return new TrendsFailedError(error.message, false, false, failureOf(provider.name, error));
    }
    // Anything else is a bug of ours, not the provider's: fail loudly.
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** A paid provider's requests and spend on a UTC day, by purpose (from the hash the gateway keeps). */
export async function spendOn(
  redis: Redis,
  keys: RedisKeys,
  provider: string,
  day = utcDay(new Date()),
): Promise<Record<TrendsPurpose, { requests: number; usd: number; points: number }>> {
  const hash = await redis.hgetall(keys.providerSpend(provider, day));
  const of = (purpose: TrendsPurpose) => ({
    requests: Number(hash[`${purpose}:requests`] ?? 0),
    usd: Number(hash[`${purpose}:micro_usd`] ?? 0) / MICRO,
    /** A metered provider's quota spent (the Trends API's data points); 0 for the others. */
    points: Number(hash[`${purpose}:points`] ?? 0),
  });
  return { research: of('research'), background: of('background') };
}

/** What a paid provider billed one research run, as its gateway counted it. */
export async function runSpendOf(
  redis: Redis,
  keys: RedisKeys,
  provider: string,
  runId: string,
): Promise<{ requests: number; usd: number; points: number }> {
  const hash = await redis.hgetall(keys.providerRunSpend(provider, runId));
  return { requests: Number(hash.requests ?? 0), usd: Number(hash.micro_usd ?? 0) / MICRO, points: Number(hash.points ?? 0) };
}

/** The account problem a paid provider last reported, if it has not answered since. */
export async function accountProblemOf(
  redis: Redis,
  keys: RedisKeys,
  provider: string,
): Promise<{ problem: string; message: string; at: string } | null> {
  const raw = await redis.get(keys.providerProblem(provider));
  return raw === null ? null : (JSON.parse(raw) as { problem: string; message: string; at: string });
}
