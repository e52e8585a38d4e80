// Every process that asks for search data builds its gateways here: a run's
// (or the refresh's) provider list becomes one routed gateway (router.ts) over
// one gateway per provider, which that provider's adapter makes
// (src/providers/<name>/adapter.ts, found through the registry): a queued
// provider through the trends queue (given by the caller, which owns the
// queue), the others directly, each with its own pace and bill.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import type { TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';
import type { TrendsFetchOptions, TrendsGateway, TrendsPurpose } from './gateway.js';
import { PROVIDERS, profileOf, providersOf, type Registry } from './registry.js';
import { RoutedTrendsGateway } from './router.js';

/** What an adapter is given to make its provider's gateway for one purpose. */
export interface AdapterDeps<Settings> {
  /** Its configuration section (config.providerSettings[name]). */
  settings: Settings;
  logger: Logger;
  /** Redis, for a provider that paces or bills across processes. */
  redis?: Redis;
  keys?: RedisKeys;
  purpose: TrendsPurpose;
  /** The gateway through the trends queue, for a queued provider; a process without the queue leaves it out. */
  queued?: (purpose: TrendsPurpose) => TrendsGateway;
}

/** What each src/providers/<name>/adapter.ts exports as `createGateway`. */
export type GatewayFactory<Settings> = (deps: AdapterDeps<Settings>) => TrendsGateway;

export interface ProviderGatewayDeps {
  config: Config;
  logger: Logger;
  /** Needed when a list names a provider that paces or bills in Redis (dataforseo). */
  redis?: Redis;
  keys?: RedisKeys;
  /** The queued providers' gateway for a purpose; a process without the trends queue leaves it out (then they are refused). */
  queued?: (purpose: TrendsPurpose) => TrendsGateway;
  /** The providers to route among; the registry's (a test adds its own). */
  registry?: Registry;
  /** Settings of providers config.ts does not know (a test's). */
  settings?: Readonly<Record<string, unknown>>;
}

export type GatewayFor = (label: string, purpose?: TrendsPurpose) => RoutedTrendsGateway;

type Options = TrendsFetchOptions;

export function providerGateways(deps: ProviderGatewayDeps): GatewayFor {
  const registry = deps.registry ?? PROVIDERS;
  const settingsOf = (name: string): unknown =>
    (deps.config.providerSettings as Readonly<Record<string, unknown>>)[name] ?? deps.settings?.[name];
  const direct = new Map<string, TrendsGateway>();
  const one = (provider: string, purpose: TrendsPurpose): TrendsGateway => {
    const key = `${provider}|${purpose}`;
    let gateway = direct.get(key);
    if (gateway) return gateway;
    // The adapter (the provider's IO) is loaded on the first request, then kept: a failure to make it fails each request.
    let made: Promise<TrendsGateway> | undefined;
    const make = async () => {
      const entry = profileOf(provider, registry);
      // By name, beside this file: the registry lists profiles only, so it stays on the ground floor (no IO).
      // A plain variable, not a template literal: Vite (the tests) would rewrite the template into a glob.
      const adapterPath = `./${entry.name}/adapter.js`;
      const { createGateway } = (await (entry.adapter?.() ?? import(/* @vite-ignore */ adapterPath))) as {
        createGateway: (deps: never) => unknown;
      };
      return (createGateway as GatewayFactory<unknown>)({
        settings: settingsOf(provider),
        logger: deps.logger,
        ...(deps.redis ? { redis: deps.redis } : {}),
        ...(deps.keys ? { keys: deps.keys } : {}),
        ...(deps.queued ? { queued: deps.queued } : {}),
        purpose,
      });
    };
    gateway = {
      fetch: async (request: TrendsRequest, options?: Options): Promise<TrendsResponse> =>
        (await (made ??= make())).fetch(request, options),
    };
    direct.set(key, gateway);
    return gateway;
  };
  const routed = new Map<string, RoutedTrendsGateway>();
  return (label, purpose = 'research') => {
    const key = `${label}|${purpose}`;
    let gateway = routed.get(key);
    if (!gateway) routed.set(key, (gateway = new RoutedTrendsGateway(providersOf(label, registry), (p) => one(p, purpose), registry)));
    return gateway;
  };
}
