// Requests go to the first provider of the list with the capability they need;
// an explore is split by part when no one provider has every part; what no
// provider of the list has fails as "not available" with a reason an operator
// can act on, and is never sent.
import { describe, expect, it } from 'vitest';
import { RoutedTrendsGateway } from '../../src/providers/router.js';
import { anchorTermFor, comparableScaleFor, DEFAULT_ANCHOR } from '../../src/providers/registry.js';
import { RECORDED_ANCHOR } from '../../src/providers/replay/provider.js';
import { TrendsFailedError, type TrendsGateway } from '../../src/providers/gateway.js';
import type { ProviderName } from '../../src/providers/registry.js';
import type { ExploreAnswer, TrendsRequest, TrendsResponse } from '../../src/domain/trends/answers.js';

/** Each provider answers with its name in the provenance, and records what it was asked. */
function routed(providers: ProviderName[]) {
  const asked: Array<[ProviderName, TrendsRequest]> = [];
  const gatewayOf = (name: ProviderName): TrendsGateway => ({
    fetch: async (request) => {
      asked.push([name, request]);
      const provenance = { provider: name };
      if (request.kind === 'explore') {
        const answer: ExploreAnswer = { kind: 'explore', keywords: request.keywords };
        for (const part of request.parts)
          if (part === 'series') answer.series = { kind: 'interestOverTime', keywords: request.keywords, points: [] };
          else if (part === 'mapCountry' || part === 'mapCity')
            answer[part] = { kind: 'interestByRegion', keywords: request.keywords, regions: [] };
          else answer[part] = { kind: part, top: [], rising: [] };
        return { ...answer, provenance } as TrendsResponse;
      }
      return { kind: 'autocomplete', topics: [], provenance } as TrendsResponse;
    },
  });
  return { gateway: new RoutedTrendsGateway(providers, gatewayOf), asked };
}

describe('the anchor of a provider list', () => {
  it("is the one its series provider can answer: replay's recorded anchor for replay+dataforseo (found by review: every such run failed at step 12)", () => {
    expect(anchorTermFor('replay+dataforseo', undefined)).toBe(RECORDED_ANCHOR);
    expect(anchorTermFor('replay', undefined)).toBe(RECORDED_ANCHOR);
    expect(anchorTermFor('dataforseo', undefined)).toBe(DEFAULT_ANCHOR);
    expect(anchorTermFor('google+dataforseo', undefined)).toBe(DEFAULT_ANCHOR);
    expect(anchorTermFor('replay+dataforseo', 'coffee')).toBe('coffee');
  });

  it('is none when the series provider keeps one scale across requests: trends-api (alone or first) declares searchInterest', () => {
    expect(comparableScaleFor('trends-api')).toEqual({ values: 'searchInterest', reference: 10 });
    expect(comparableScaleFor('trends-api+google')).toEqual({ values: 'searchInterest', reference: 10 });
    expect(comparableScaleFor('trends-api+dataforseo')).toEqual({ values: 'searchInterest', reference: 10 });
    expect(comparableScaleFor('google+trends-api')).toBeUndefined();
    expect(comparableScaleFor('google')).toBeUndefined();
  });
});

describe('routing by capability', () => {
  it('each request to the first provider that has its capability', async () => {
    const { gateway, asked } = routed(['google', 'dataforseo']);
    await gateway.fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '90d', geo: '' });
    await gateway.fetch({ kind: 'searchVolume', keywords: ['x'], geo: 'US', language: 'en' });
    expect(asked.map(([name, r]) => [name, r.kind])).toEqual([
      ['google', 'interestOverTime'],
      ['dataforseo', 'searchVolume'],
    ]);
  });

  it('what no provider of the list has is not available, with the reason, and never sent', async () => {
    const { gateway, asked } = routed(['google']);
    const refused = gateway.fetch({ kind: 'searchVolume', keywords: ['x'], geo: 'US', language: 'en' });
    await expect(refused).rejects.toBeInstanceOf(TrendsFailedError);
    await expect(refused).rejects.toMatchObject({
      notAvailable: true,
      message: 'no configured provider answers monthly search volume (TRENDS_PROVIDER=google; dataforseo would)',
    });
    expect(asked).toEqual([]);
  });

  it('an explore split by part: the city map DataForSEO lacks is marked unavailable, the rest answered, each part with its provenance', async () => {
    const { gateway, asked } = routed(['dataforseo']);
    const answer = (await gateway.fetch({
      kind: 'explore',
      keywords: ['x'],
      timeframe: '12m',
      geo: '',
      parts: ['mapCountry', 'mapCity'],
    })) as ExploreAnswer & TrendsResponse;
    expect(asked).toEqual([['dataforseo', { kind: 'explore', keywords: ['x'], timeframe: '12m', geo: '', parts: ['mapCountry'] }]]);
    expect(answer.mapCountry).toMatchObject({ provenance: { provider: 'dataforseo' } });
    expect(answer.mapCity).toBeUndefined();
    expect(answer.unavailable).toEqual(['mapCity']);
    expect(answer.missing?.mapCity).toMatch(/no configured provider answers interest by city/);

    const mixed = routed(['dataforseo', 'synthetic']);
    const both = (await mixed.gateway.fetch({
      kind: 'explore',
      keywords: ['x'],
      timeframe: '12m',
      geo: '',
      parts: ['mapCountry', 'mapCity'],
    })) as ExploreAnswer & TrendsResponse;
    expect(mixed.asked.map(([name, r]) => [name, (r as { parts: string[] }).parts])).toEqual([
      ['dataforseo', ['mapCountry']],
      ['synthetic', ['mapCity']],
    ]);
    expect([both.mapCountry!.outcome, (both.mapCountry as { provenance?: { provider: string } }).provenance?.provider]).toEqual([
      undefined,
      'dataforseo',
    ]);
    expect((both.mapCity as { provenance?: { provider: string } }).provenance?.provider).toBe('synthetic');
  });
});
