// A refresh's request: 90 days of interest for up to five keywords, waiting on
// Google without spending the job's attempts; a failure keeps the previous data.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Db } from '../db/connection.js';
import { sleepWithoutAttempt } from '../queue/wait.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import { TrendsFailedError, WaitingForTrendsError, type TrendsGateway, type TrendsPurpose } from '../providers/gateway.js';
import { sleepFor } from '../research/queued-gateway.js';
import type { InterestOverTime } from '../domain/trends/answers.js';

export interface RefreshDeps {
  db: Db;
  redis: Redis;
  redisKeys: RedisKeys;
  trendsFor(provider: string, purpose?: TrendsPurpose): TrendsGateway;
  /** The provider for researched insights (synthetic insights always use synthetic). */
  provider: string;
  geo: string;
  waitRetryMs?: number;
  announce?: (...eventIds: string[]) => Promise<void>;
}

/** The 90 days of interest for these keywords (one request), waiting on Google without spending an attempt. */
export async function fetchInterest(
  deps: RefreshDeps,
  job: Job,
  token: string | undefined,
  provider: string,
  keywords: string[],
  what: string,
): Promise<InterestOverTime> {
  let answer;
  try {
    answer = await deps
      .trendsFor(provider, 'background')
      .fetch(
        { kind: 'interestOverTime', keywords, timeframe: '90d', geo: deps.geo },
        { waiter: { queue: job.queueName, jobId: String(job.id) } },
      );
  } catch (error) {
    if (error instanceof WaitingForTrendsError) throw await sleepWithoutAttempt(job, token, sleepFor(error, deps.waitRetryMs ?? 30_000));
    if (error instanceof TrendsFailedError) throw new UnrecoverableError(`${what} failed, previous data kept: ${error.message}`);
    throw error;
  }
  if (answer.kind !== 'interestOverTime') throw new UnrecoverableError(`expected interest over time, got ${answer.kind}`);
  return answer;
}
