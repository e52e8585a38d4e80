// What every provider's gateway is: how a step, the refresh or a comparison
// asks for an answer, whether through the trends queue (research/queued-gateway.ts),
// directly (local data), or paced and billed in Redis (paid-gateway.ts), and
// the errors that tell a wait from a failure.
import type { KnownFailure } from '../domain/public-error.js';
import {
  AccessRefusedError,
  MalformedResponseError,
  NotAvailableError,
  NotRecordedError,
  RateLimitedError,
  type TrendsProvider,
} from './contract.js';
import type { TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';

/** The answer has not come yet (Google is throttling us, or the queue is long). The step waits; it does not fail. */
export class WaitingForTrendsError extends Error {
  override name = 'WaitingForTrendsError';
  constructor(
    message: string,
    /** When the trends job said it will be waiting a while (a route cooling down): how long. */
    readonly retryAfterMs?: number,
    /** Who is waited for, in the run's waiting reason. */
    readonly source = 'Google Trends',
    /** For the operator only (`insights runs show`): what they must do; never shown to API clients. */
    readonly operatorDetail?: string,
  ) {
    super(message);
  }
}

/** The trends job failed for good (malformed answer, not recorded, retries exhausted). */
export class TrendsFailedError extends Error {
  override name = 'TrendsFailedError';
  constructor(
    message: string,
    /** Replay has no recording of the request (it never invents one): evidence not recorded, not a failure of Google. */
    readonly notRecorded = false,
    /** No configured provider has the capability the request needs: evidence not available, not a failure. */
    readonly notAvailable = false,
    /** The provider that failed, and the failure's kind when its error's class decides it (failureOf): what a client is told. */
    readonly known: KnownFailure = {},
  ) {
    super(message);
  }
}

/**
 * What a provider's error says of its failure by its class, for a client's sentence (domain/public-error.ts):
 * its kind where the class decides it; the rest (an outage, a timeout or an unreachable host told apart only
 * by wording; a request refused; a bug) is read from the wording.
 */
export function failureOf(provider: string, error: unknown): KnownFailure {
  if (error instanceof AccessRefusedError) return { provider, kind: 'notAllowed' };
  if (error instanceof RateLimitedError) return { provider, kind: 'rateLimited' };
  if (error instanceof MalformedResponseError) return { provider, kind: 'unrecognised' };
  if (error instanceof NotRecordedError) return { provider, kind: 'notRecorded' };
  return { provider };
}

/**
 * BullMQ priorities of trends jobs (lower goes first): a research run's
 * requests go ahead of the daily refresh's and discovery's, so a run started
 * during a long refresh finishes in about its own budget. Among research
 * requests, those of runs further along go first (see researchPriority).
 */
export const TRENDS_PRIORITY = { research: 1, background: 1_000_100 } as const;
export type TrendsPurpose = keyof typeof TRENDS_PRIORITY;

/** A job asleep until a trends answer comes: which queue, which job. */
export interface TrendsWaiter {
  queue: string;
  jobId: string;
}

export interface TrendsFetchOptions {
  priority?: number;
  waiter?: TrendsWaiter;
  /**
   * Whose answer this is: a request of an account's private research is answered for that account alone
   * (its trends job is keyed by the account too), so no other account learns from a shared answer, its
   * timing or its provenance that the phrase was asked. Unset: shared by every run asking the same that day.
   */
  scope?: string;
}

export interface TrendsGateway {
  /** `waiter`: the job asking, which sleeps (its slot freed) rather than wait when the answer is not there yet. */
  fetch(request: TrendsRequest, options?: TrendsFetchOptions): Promise<TrendsResponse>;
}

/**
 * Local data (replay, synthetic) needs no protection from bursts: asked directly.
 * Provider errors become TrendsFailedError, as they would through the queue.
 */
export class DirectTrendsGateway implements TrendsGateway {
  constructor(private readonly provider: TrendsProvider) {}

  async fetch(request: TrendsRequest): Promise<TrendsResponse> {
    try {
      return await this.provider.fetch(request);
    } catch (error) {
      throw new TrendsFailedError(
        error instanceof Error ? error.message : String(error),
        error instanceof NotRecordedError,
        error instanceof NotAvailableError,
        failureOf(this.provider.name, error),
      );
    }
  }
}
