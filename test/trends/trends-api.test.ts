// The Trends API provider against the loopback Trends API: the service account signs in at
// TRENDS_API_TOKEN_URL with an assertion the endpoint verifies (RS256, iss, scope, aud), each
// term is asked on its own and its operation polled until done, the values are read from
// searchInterest, and quota and allow-list answers become a wait and a refusal, never data.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serviceAccountFrom, TRENDS_SCOPE } from '../../src/providers/trends-api/auth.js';
import { TrendsApiClient } from '../../src/providers/trends-api/client.js';
import { TrendsApiProvider } from '../../src/providers/trends-api/provider.js';
import { ProviderAccountError, ProviderUnavailableError, RateLimitedError, RefusedError } from '../../src/providers/contract.js';
import type { InterestByRegion, InterestOverTime } from '../../src/domain/trends/answers.js';
import {
  LOOPBACK_ACCOUNT,
  LOOPBACK_PROJECT,
  placeInterestOf,
  searchInterestOf,
  startTrendsApiOnLoopback,
  type TrendsApiOnLoopback,
} from '../../scripts/lib/trends-api-on-loopback/index.js';

let fake: TrendsApiOnLoopback;
beforeAll(async () => {
  fake = await startTrendsApiOnLoopback();
});
afterAll(async () => {
  await fake?.stop();
});
beforeEach(() => {
  fake.pollsUntilDone = 2;
  fake.allowList = new Set([LOOPBACK_PROJECT]);
  fake.exhaustNext(0);
});

async function providerFor(options: { project?: string; requestTimeoutMs?: number; tokenUrl?: string } = {}) {
  const account = await serviceAccountFrom(fake.env.GOOGLE_APPLICATION_CREDENTIALS!, options.tokenUrl ?? fake.tokenUrl);
  return new TrendsApiProvider(
    new TrendsApiClient(
      { apiUrl: fake.url, project: options.project ?? account.project!, requestTimeoutMs: options.requestTimeoutMs ?? 10_000, pollMs: 10 },
      account,
    ),
  );
}

describe('the Trends API provider', () => {
  it('signs in at TRENDS_API_TOKEN_URL with an assertion naming the account, the scope and that endpoint', async () => {
    const tokensBefore = fake.tokens.length;
    const provider = await providerFor();
    await provider.fetch({ kind: 'interestOverTime', keywords: ['meal kits'], timeframe: '90d', geo: 'US' });
    const asked = fake.tokens.slice(tokensBefore);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ accepted: true, claims: { iss: LOOPBACK_ACCOUNT, scope: TRENDS_SCOPE, aud: fake.tokenUrl } });
    // Every API request carried the project.
    expect(fake.requests.slice(-1)[0]!.project).toBe(LOOPBACK_PROJECT);
  });

  it('a comparison is each term asked on its own, polled until done, on one scale read from searchInterest', async () => {
    fake.pollsUntilDone = 3;
    const before = fake.requests.length;
    const provider = await providerFor();
    const answer = (await provider.fetch({
      kind: 'interestOverTime',
      keywords: ['meal kits', 'weather'],
      timeframe: '12m',
      geo: 'US',
    })) as InterestOverTime & { provenance?: object };
    const asked = fake.requests.slice(before);
    const posts = asked.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.body?.term)).toEqual(['meal kits', 'weather']);
    expect(posts.every((r) => r.body?.resolution === 'WEEKLY' && r.body.geo === 'US')).toBe(true);
    // Three polls each: the operations finish on the third.
    expect(asked.filter((r) => r.method === 'GET')).toHaveLength(6);
    expect(answer.points.length).toBeGreaterThanOrEqual(52);
    expect(answer.provenance).toMatchObject({
      provider: 'trends-api',
      requests: 2,
      dataPoints: 2 * answer.points.length,
      valuesFrom: 'searchInterest',
    });
    // Each point's two values keep the ratio of their searchInterest (comparable across requests).
    for (const p of answer.points) {
      const [a, b] = [searchInterestOf('meal kits', 'US', p.date), searchInterestOf('weather', 'US', p.date)];
      expect(p.values[0]! / p.values[1]!).toBeCloseTo(a / b, 2);
    }
    expect(Math.max(...answer.points.flatMap((p) => p.values))).toBe(100);
  });

  it('regions: one term scaled to its strongest place, two terms as shares of their searchInterest there', async () => {
    const provider = await providerFor();
    const one = (await provider.fetch({
      kind: 'interestByRegion',
      keywords: ['meal kits'],
      timeframe: '12m',
      geo: 'US',
      resolution: 'REGION',
    })) as InterestByRegion;
    expect(one.regions.map((r) => r.geoCode)).toEqual(['US-CA', 'US-NY', 'US-TX', 'US-FL', 'US-WA']);
    expect(Math.max(...one.regions.map((r) => r.values[0]!))).toBe(100);
    const two = (await provider.fetch({
      kind: 'interestByRegion',
      keywords: ['meal kits', 'weather'],
      timeframe: '12m',
      geo: '',
      resolution: 'COUNTRY',
    })) as InterestByRegion;
    const us = two.regions.find((r) => r.geoCode === 'US')!;
    const [a, b] = [placeInterestOf('meal kits', 'US'), placeInterestOf('weather', 'US')];
    expect(us.values[0]).toBeCloseTo((a * 100) / (a + b), 1);
    expect(us.geoName).toBe('United States');
  });

  it('an operation not done by the deadline is a wait (asked again later), not data', async () => {
    fake.pollsUntilDone = 1_000_000;
    const provider = await providerFor({ requestTimeoutMs: 300 });
    await expect(provider.fetch({ kind: 'interestOverTime', keywords: ['meal kits'], timeframe: '30d', geo: '' })).rejects.toThrow(
      ProviderUnavailableError,
    );
  });

  it('RESOURCE_EXHAUSTED is a rate limit with its retryDelay; PERMISSION_DENIED a refusal that names the fix', async () => {
    const provider = await providerFor();
    fake.exhaustNext(1, 7);
    const limited = await provider
      .fetch({ kind: 'interestOverTime', keywords: ['meal kits'], timeframe: '30d', geo: '' })
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterMs).toBe(7_000);

    fake.allowList = new Set();
    const refused = await provider
      .fetch({ kind: 'interestOverTime', keywords: ['meal kits'], timeframe: '30d', geo: '' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RefusedError);
    expect((refused as Error).message).toMatch(/PERMISSION_DENIED/);
    expect((refused as Error).message).toMatch(/allow-list/);
    expect((refused as Error).message).toMatch(/TRENDS_API_PROJECT/);
  });

  it("a token endpoint that refuses the assertion is an account problem naming the key, never the key's contents", async () => {
    // The loopback verifies `aud`: an assertion for another endpoint is refused.
    const provider = await providerFor({ tokenUrl: `${fake.url}/token?elsewhere` });
    const error = await provider.fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '30d', geo: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderAccountError);
    expect((error as Error).message).toMatch(/GOOGLE_APPLICATION_CREDENTIALS/);
    expect((error as Error).message).not.toMatch(/PRIVATE KEY/);
    expect(fake.tokens.at(-1)).toMatchObject({ accepted: false, reason: expect.stringContaining('aud') });
  });
});
