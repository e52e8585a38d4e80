// The delivery's fate, from data alone (src/domain/webhooks/delivery-decision.ts).
import { describe, expect, it } from 'vitest';
import { afterAttempt, beforeAttempt, type AttemptResult } from '../../src/domain/webhooks/delivery-decision.js';

const state = {
  status: 'pending' as const,
  subscriptionExists: true,
  subscriptionState: 'enabled' as const,
  disabledReason: null,
  accountSuspended: false,
};
const now = new Date('2026-11-27T12:00:00Z');
const attempt = (over: Partial<AttemptResult>): AttemptResult => ({
  statusCode: 500,
  refused: false,
  error: null,
  deliveryId: 'dlv_1',
  attempt: 1,
  attemptsMade: 0,
  maxAttempts: 8,
  failingSince: null,
  disableAfterMs: 72 * 3_600_000,
  now,
  ...over,
});

describe('before an attempt', () => {
  it('sends a pending delivery of an enabled subscription; holds a suspended account; closes a removed or disabled one', () => {
    expect(beforeAttempt(state)).toEqual({ kind: 'send' });
    expect(beforeAttempt({ ...state, status: 'succeeded' })).toMatchObject({ kind: 'skip' });
    expect(beforeAttempt({ ...state, accountSuspended: true })).toEqual({ kind: 'hold' });
    expect(beforeAttempt({ ...state, subscriptionExists: false, subscriptionState: null })).toMatchObject({
      kind: 'close',
      error: 'subscription removed',
    });
    expect(beforeAttempt({ ...state, subscriptionState: 'disabled', disabledReason: 'x' })).toMatchObject({
      kind: 'close',
      error: 'subscription disabled: x',
    });
  });
});

describe('after an attempt', () => {
  it('a 2xx is delivered and ends a failure streak', () => {
    expect(afterAttempt(attempt({ statusCode: 204 }))).toEqual({ kind: 'delivered', label: 'delivered', clearFailing: false });
    expect(afterAttempt(attempt({ statusCode: 200, failingSince: now }))).toMatchObject({ clearFailing: true });
  });

  it('an address the policy refuses fails for good at once; 410 disables the subscription', () => {
    expect(afterAttempt(attempt({ statusCode: null, refused: true, error: 'private address' }))).toMatchObject({
      kind: 'give-up',
      label: 'blocked',
      error: 'private address (replay with: insights webhooks replay dlv_1)',
    });
    expect(afterAttempt(attempt({ statusCode: 410 }))).toMatchObject({
      kind: 'give-up',
      label: 'gone',
      disable: 'the endpoint answered 410 Gone',
    });
  });

  it('anything else retries on the schedule, starts a failure streak, and gives up at the last attempt or after a long streak', () => {
    expect(afterAttempt(attempt({ statusCode: 503 }))).toEqual({
      kind: 'retry',
      label: 'retry',
      message: 'the receiver answered 503',
      markFailing: true,
    });
    expect(afterAttempt(attempt({ attemptsMade: 7, attempt: 8 }))).toMatchObject({
      kind: 'give-up',
      label: 'failed',
      error: 'the receiver answered 500 (after 8 attempts; replay with: insights webhooks replay dlv_1)',
    });
    const since = new Date(now.getTime() - 73 * 3_600_000);
    expect(afterAttempt(attempt({ failingSince: since, error: 'timed out' }))).toMatchObject({
      kind: 'give-up',
      markFailing: false,
      disable: `failing without a break since ${since.toISOString()}`,
      error: 'timed out; subscription disabled after a long failure streak',
    });
  });
});
