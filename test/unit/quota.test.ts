import { describe, expect, it } from 'vitest';
import { PLANS, rateLimitHeaders, secondsUntilUtcMidnight } from '../../src/domain/quota.js';
import { utcDay } from '../../src/domain/utc-day.js';

describe('quota arithmetic', () => {
  it('has the advertised plan limits', () => {
    expect(PLANS.free.dailyLimit).toBe(100);
    expect(PLANS.starter.dailyLimit).toBe(1000);
    expect(PLANS.pro.dailyLimit).toBe(10000);
    expect(PLANS.enterprise.dailyLimit).toBeNull();
  });

  it('counts per UTC day and resets at UTC midnight', () => {
    expect(utcDay(new Date('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22');
    expect(utcDay(new Date('2026-11-23T00:00:00.000Z'))).toBe('2026-11-23');
    expect(secondsUntilUtcMidnight(new Date('2026-11-22T23:00:00Z'))).toBe(3600);
    expect(secondsUntilUtcMidnight(new Date('2026-11-22T00:00:00Z'))).toBe(86400);
    expect(secondsUntilUtcMidnight(new Date('2026-11-22T23:59:59.900Z'))).toBe(1);
    expect(secondsUntilUtcMidnight(new Date('2026-12-31T12:00:00Z'))).toBe(43200);
  });

  it('formats the IETF RateLimit fields', () => {
    const headers = rateLimitHeaders({ plan: 'free', limit: 100, used: 43, remaining: 57, resetSeconds: 3600 });
    expect(headers['ratelimit-policy']).toBe('"free";q=100;w=86400');
    expect(headers.ratelimit).toBe('"free";r=57;t=3600');
  });

  it('describes no policy for an unlimited plan', () => {
    expect(rateLimitHeaders({ plan: 'enterprise', limit: null, used: 5, remaining: null, resetSeconds: 10 })).toEqual({});
  });
});
