// Providers are plugins: a folder and one line in the registry. The kind of a
// provider list (live, recorded, simulated) is decided in one place, from the
// registry, and a list with any recorded or simulated member is never live.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { provenanceKind } from '../../src/domain/provenance.js';
import { providerGateways } from '../../src/providers/gateway-factory.js';
import {
  kindOfProviders,
  PROVIDERS,
  providersOf,
  queuedProviderOf,
  type ProviderName,
  type RegisteredProvider,
} from '../../src/providers/registry.js';
import { providerOf } from '../../src/refresh/plan.js';
import { runSteps } from '../support/steps-harness.js';
import { asked } from '../providers/fixture/adapter.js';
import { fixture } from '../providers/fixture/profile.js';

describe('the kind of a provider list', () => {
  it('is live only when every member is live: any recorded or simulated member decides', () => {
    expect(kindOfProviders('google')).toBe('live');
    expect(kindOfProviders('google+dataforseo')).toBe('live');
    expect(kindOfProviders('synthetic+dataforseo')).toBe('simulated');
    expect(kindOfProviders('dataforseo+synthetic')).toBe('simulated');
    expect(kindOfProviders('replay+dataforseo')).toBe('recorded');
    expect(kindOfProviders('google+replay')).toBe('recorded');
    for (const provider of PROVIDERS.filter((p) => p.kind !== 'live'))
      for (const live of PROVIDERS.filter((p) => p.kind === 'live')) {
        expect(kindOfProviders(`${live.name}+${provider.name}`)).toBe(provider.kind);
        expect(kindOfProviders(`${provider.name}+${live.name}`)).toBe(provider.kind);
      }
  });

  it('is what provenance, the refresh and its source line read', () => {
    const researched = (provider: string) => ({ source: 'research' as const, provider });
    expect(provenanceKind(researched('synthetic+dataforseo'))).toBe('simulated');
    expect(provenanceKind(researched('replay+dataforseo'))).toBe('recorded');
    // The refresh asks a configured list only when it is live (a recorded list once passed for live).
    expect(providerOf(researched('google'), 'replay+dataforseo')).toBeNull();
    expect(providerOf(researched('google'), 'synthetic+dataforseo')).toBeNull();
    expect(providerOf(researched('google'), 'google+dataforseo')).toBe('google+dataforseo');
    expect(providerOf(researched('synthetic+dataforseo'), 'google')).toBe('synthetic');
    expect(providerOf(researched('replay+dataforseo'), 'google')).toBeNull();
  });
});

describe('a provider added as a folder and a registry line', () => {
  // test/providers/fixture/ is the folder; this is the line.
  const registry: readonly RegisteredProvider[] = [...PROVIDERS, { ...fixture, adapter: () => import('../providers/fixture/adapter.js') }];

  it('answers a research run through the registry: asked for what it has, never for what it lacks', async () => {
    const config = loadConfig({});
    const gatewayFor = providerGateways({
      config,
      logger: pino({ level: 'silent' }),
      registry,
      settings: { fixture: { latencyMs: 0 } },
    });
    expect(providersOf('fixture', registry)).toEqual(['fixture']);
    expect(kindOfProviders('google+fixture', registry)).toBe('recorded');
    const gateway = gatewayFor('fixture');
    asked.length = 0;
    // A run's list names it as TRENDS_PROVIDER would (its name is not in ProviderName: that is the registry line's to add).
    const run = await runSteps('meal kits for dogs', (request) => gateway.fetch(request), {
      providers: ['fixture' as ProviderName],
      registry,
    });
    expect(run.summaries.size).toBe(40);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.some((r) => r.kind === 'autocomplete' || r.kind === 'trendingFeed')).toBe(false);
    expect((run.outputs.byStep('interest_30d') as { provenance?: { provider?: string } }).provenance?.provider).toBe('fixture');
    await expect(gateway.fetch({ kind: 'autocomplete', term: 'meal kits' })).rejects.toThrow(
      /no configured provider answers topic autocomplete \(TRENDS_PROVIDER=fixture; google or replay or synthetic would\)/,
    );
  });
});

describe('the trends queue', () => {
  it("is Google's: the registry's one queued provider, and a second queued provider is refused", () => {
    expect(queuedProviderOf()?.name).toBe('google');
    const second = { ...fixture, queued: true } as RegisteredProvider;
    expect(() => queuedProviderOf([...PROVIDERS, second])).toThrow(
      /google and fixture are both marked queued, but the trends queue is Google's/,
    );
  });
});
