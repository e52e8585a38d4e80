import { describe, expect, it } from 'vitest';
import { estimateRefresh, HTTPS_PER_REFRESH_GROUP, refreshEstimate } from '../../src/domain/trends/google/refresh-estimate.js';

describe("the refresh's share of Google's budget", () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it('fits when the requests take less than the time between refreshes', () => {
    const e = estimateRefresh(2_000, 10_000, 1, 10, '0 3 * * *', now);
    expect(e).toMatchObject({
      requests: 2_000,
      minutesNeeded: 200,
      minutesAvailable: 1440,
      nextRefreshAt: '2026-11-24T03:00:00.000Z',
      fits: true,
    });
  });

  it('says when it cannot, and what to do: more proxies, a lower frequency, or fewer insights', () => {
    const e = estimateRefresh(20_000, 100_000, 1, 10, '0 3 * * *', now);
    expect(e.fits).toBe(false);
    expect(e.minutesNeeded).toBe(2_000);
    expect(e.advice).toMatch(/add 1 egress proxy \(TRENDS_PROXY_URLS\), refresh less often \(REFRESH_CRON\), or refresh fewer insights/);
    expect(estimateRefresh(20_000, 100_000, 2, 10, '0 3 * * *', now).fits).toBe(true);
    expect(estimateRefresh(20_000, 100_000, 2, 10, '0 */6 * * *', now).advice).toMatch(/every 360/);
  });

  it('counts what a plan asks of live Google only: a group is an explore and its series; synthetic insights cost nothing', () => {
    const plan = { googleGroups: 1_000, googleInsights: 5_000 };
    const pacing = { routes: 1, requestsPerMinute: 10, cron: '0 3 * * *' };
    expect(refreshEstimate(plan, 'google', pacing, now)).toMatchObject({
      insights: 5_000,
      requests: 1_000 * HTTPS_PER_REFRESH_GROUP,
      minutesNeeded: 200,
      fits: true,
    });
    expect(refreshEstimate(plan, 'synthetic', pacing, now)).toMatchObject({ requests: 0, minutesNeeded: 0, fits: true });
  });
});
