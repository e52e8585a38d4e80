// The cache of Google's answers that runs share (a trends job per exact request and day) must not
// let one account learn another's private research: a private run's requests are keyed by its account.
import { describe, expect, it } from 'vitest';
import { jobIdOf } from '../../src/queue/enqueue.js';
import { JOB } from '../../src/queue/job-catalogue.js';
import { trendsScopeOf } from '../../src/research/trends-scope.js';
import type { TrendsRequest } from '../../src/domain/trends/answers.js';

const PUBLIC = new Set(['weather']);
const at = new Date('2026-11-29T10:00:00Z');
const jobOf = (request: TrendsRequest, owner: string | null) =>
  jobIdOf(JOB.trendsFetch, { request, provider: 'google', ...scoped(trendsScopeOf(request, owner, PUBLIC)) }, at);
const scoped = (scope: string | undefined) => (scope ? { scope } : {});

const privatePhrase: TrendsRequest = { kind: 'interestOverTime', keywords: ['padel court bookings', 'weather'], timeframe: '12m', geo: '' };

describe('which runs share a trends answer', () => {
  it("keeps a private run's requests to its account: another account asking the same gets a job of its own", () => {
    expect(jobOf(privatePhrase, 'acc_a')).not.toBe(jobOf(privatePhrase, 'acc_b'));
    expect(jobOf(privatePhrase, 'acc_a')).not.toBe(jobOf(privatePhrase, null));
  });

  it('shares within the account, between public runs, and for requests of public terms only', () => {
    expect(jobOf(privatePhrase, 'acc_a')).toBe(jobOf(privatePhrase, 'acc_a'));
    expect(jobOf(privatePhrase, null)).toBe(jobOf(privatePhrase, null));
    const anchorOnly: TrendsRequest = { kind: 'interestOverTime', keywords: ['Weather'], timeframe: '12m', geo: '' };
    expect(trendsScopeOf(anchorOnly, 'acc_a', PUBLIC)).toBeUndefined();
    expect(jobOf(anchorOnly, 'acc_a')).toBe(jobOf(anchorOnly, 'acc_b'));
  });

  it('leaves unscoped job ids as they were before scopes (a deploy keeps the day’s answers)', () => {
    const request: TrendsRequest = { kind: 'autocomplete', term: 'dog grooming' };
    expect(jobIdOf(JOB.trendsFetch, { request, provider: 'google' }, at)).toBe(jobOf(request, null));
    expect(trendsScopeOf(request, 'acc_a', PUBLIC)).toBe('acc_a');
  });
});
