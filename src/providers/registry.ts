// Every provider of search data, in one list. Adding one is a folder under
// src/providers/ (its profile.ts and adapter.ts, with whatever client it needs)
// and one line here (docs/internals.md, "Adding a provider"). The list and the
// profiles are plain data: the domain (provenance), config.ts (each provider's
// settings) and the adapters all read them. A provider's adapter, its IO, is
// loaded only when a process first asks it for an answer (src/providers/gateway-factory.ts).
import { CAPABILITY_WORDS, type Capability } from '../domain/trends/capabilities.js';
import type { ComparableScale, ProviderKind, ProviderProfile } from '../domain/trends/provider-profile.js';
import { dataforseo } from './dataforseo/profile.js';
import { google } from './google/profile.js';
import { replay } from './replay/profile.js';
import { synthetic } from './synthetic/profile.js';
import { trendsApi } from './trends-api/profile.js';

/**
 * A provider as the registry holds it: its profile. Its adapter is `src/providers/<name>/adapter.ts`, loaded by
 * name in src/providers/gateway-factory.ts (the adapters' floor), so this list, which the domain and config read, never
 * imports IO; a provider kept elsewhere (a test's) says where its adapter is.
 */
export type RegisteredProvider<P extends ProviderProfile = ProviderProfile> = P & {
  adapter?: () => Promise<{ createGateway: (deps: never) => unknown }>;
};

export const PROVIDERS = [google, replay, synthetic, dataforseo, trendsApi] as const satisfies readonly RegisteredProvider[];

export type Registry = readonly RegisteredProvider[];
export type ProviderName = (typeof PROVIDERS)[number]['name'];
export const PROVIDER_NAMES = PROVIDERS.map((p) => p.name) as readonly ProviderName[];

/** Each provider's configuration section, as config.ts reads it (config.providerSettings). */
export type ProviderSettings = { readonly [P in (typeof PROVIDERS)[number] as P['name']]: ReturnType<P['settings']> };

/** A provider's profile, if the registry has one by that name. */
export const findProfile = (name: string, registry: Registry = PROVIDERS): RegisteredProvider | undefined =>
  registry.find((p) => p.name === name);

/** A provider's profile; unknown names throw. */
export function profileOf(name: string, registry: Registry = PROVIDERS): RegisteredProvider {
  const profile = registry.find((p) => p.name === name);
  if (!profile) throw new Error(`unknown trends provider "${name}"`);
  return profile;
}

/**
 * The provider asked through the trends queue, the one profile with `queued`. The queue is Google's: its worker
 * (jobs/trends-fetch.job.ts) sends every job through Google's client and egress pool, so a second queued provider
 * would be answered by Google. It is refused here, at start, rather than answered wrongly.
 */
export function queuedProviderOf(registry: Registry = PROVIDERS): RegisteredProvider | undefined {
  const queued = registry.filter((p) => p.queued);
  if (queued.length > 1)
    throw new Error(
      `providers ${queued.map((p) => p.name).join(' and ')} are both marked queued, but the trends queue is Google's ` +
        "(its worker asks Google's client, jobs/trends-fetch.job.ts): leave queued on one and ask the other directly",
    );
  return queued[0];
}

/** The registry's queued provider (live Google), checked once when the registry loads: every process refuses two. */
export const QUEUED_PROVIDER = queuedProviderOf();

/** A run's provider label: the configured providers in order of preference, e.g. "google+dataforseo". */
export const providerLabel = (providers: readonly string[]) => providers.join('+');

/** The providers a run's label names (runs from before lists name one). Unknown names throw. */
export function providersOf(label: string, registry: Registry = PROVIDERS): ProviderName[] {
  return label.split('+').map((name) => profileOf(name, registry).name as ProviderName);
}

/**
 * What a provider list's answers are, the one place it is decided: simulated
 * when any member is (a simulation mixed in makes the whole list one),
 * recorded when any member is, live otherwise. Names this registry does not
 * know (none today) count as live, as every provider did before kinds.
 */
export function kindOfProviders(label: string | null | undefined, registry: Registry = PROVIDERS): ProviderKind {
  const kinds = (label ?? '').split('+').map((name) => registry.find((p) => p.name === name)?.kind ?? 'live');
  if (kinds.includes('simulated')) return 'simulated';
  if (kinds.includes('recorded')) return 'recorded';
  return 'live';
}

/** The provider of a run, or a failure, that names none: Google, the only provider before runs named theirs. */
export const UNNAMED_PROVIDER: RegisteredProvider = google;

/** Where a live list's answers came from, in words ("live Google Trends and DataForSEO"); Google's when it names none. */
export function sourceOfProviders(label: string | null | undefined, registry: Registry = PROVIDERS): string {
  const names = (label ?? '').split('+');
  const sources = registry.filter((p) => p.kind === 'live' && names.includes(p.name)).map((p) => p.source);
  return sources.length > 0 ? sources.join(' and ') : UNNAMED_PROVIDER.source;
}

/** The simulated members of a list, or the registry's first simulated provider: where a simulated insight is refreshed. */
export function simulatedProviders(label: string | null | undefined, registry: Registry = PROVIDERS): string {
  const names = (label ?? '').split('+');
  const simulated = registry.filter((p) => p.kind === 'simulated');
  const members = simulated.filter((p) => names.includes(p.name));
  return providerLabel((members.length > 0 ? members : simulated.slice(0, 1)).map((p) => p.name));
}

/** The first of the providers that has the capability, if any. */
export const answeringProvider = <N extends string>(providers: readonly N[], capability: Capability, registry: Registry = PROVIDERS) =>
  providers.find((p) => profileOf(p, registry).capabilities.includes(capability));

/** The provider that answers a run's series (the first of its list with the capability), if any. */
export const seriesProviderOf = (label: string, registry: Registry = PROVIDERS): RegisteredProvider | undefined => {
  const name = answeringProvider(providersOf(label, registry), 'series', registry);
  return name === undefined ? undefined : profileOf(name, registry);
};

/** Why a capability is missing from a list of providers, in words an operator can act on. */
export function unavailableReason(capability: Capability, providers: readonly string[], registry: Registry = PROVIDERS): string {
  const having = registry.filter((p) => p.capabilities.includes(capability)).map((p) => p.name);
  return `no configured provider answers ${CAPABILITY_WORDS[capability]} (TRENDS_PROVIDER=${providers.join(',')}; ${having.join(' or ')} would)`;
}

/** The term every idea is compared with (step compare_anchor, and steps interest_by_country and interest_by_city when comparable) unless TRENDS_ANCHOR names one. */
export const DEFAULT_ANCHOR = 'weather';

/** `providers`: a run's list (e.g. "replay+dataforseo"); the anchor is the one its series provider can answer. */
export function anchorTermFor(providers: string, configured: string | undefined, registry: Registry = PROVIDERS): string {
  return configured ?? seriesProviderOf(providers, registry)?.anchor ?? DEFAULT_ANCHOR;
}

/** The scale a list's series provider keeps across requests, if it declares one: then no anchor term is asked (ProviderProfile.comparableScale). */
export function comparableScaleFor(providers: string, registry: Registry = PROVIDERS): ComparableScale | undefined {
  return seriesProviderOf(providers, registry)?.comparableScale;
}
