// What a provider of search data declares about itself: the shape every
// provider's profile (src/providers/<name>/profile.ts) has. Plain data and
// pure functions, so the domain, config.ts and the adapters read the same
// declaration (src/providers/registry.ts lists them).
import type { ProvenanceKind } from '../provenance-kind.js';
import type { Capability } from './capabilities.js';

/**
 * What a provider's answers are: today's searches (live), answers recorded
 * once and served again (recorded), or a made-up world (simulated). A list of
 * providers is as good as its least real member (kindOfProviders).
 */
export type ProviderKind = ProvenanceKind;

/**
 * How config.ts reads a provider's variables for it: each problem is
 * collected, not thrown, so one error lists every bad variable (config.ts's
 * EnvReader is one).
 */
export interface SettingsReader {
  text(name: string): string | undefined;
  url(name: string, protocols: readonly string[]): string | undefined;
  integer(name: string, fallback: number, min: number, max: number): number;
  /** A path under the project's root (absolute as given). */
  path(name: string, fallback: string): string;
  /** Problems that concern more than one variable. */
  check(ok: boolean, problem: string): void;
}

/** A scale a provider's values share across requests (see ProviderProfile.comparableScale). */
export interface ComparableScale {
  values: 'searchInterest';
  reference: number;
}

export interface ProviderProfile<Name extends string = string, Settings = unknown> {
  name: Name;
  kind: ProviderKind;
  /** One line for operators (`insights budget`, docs/providers.md). */
  summary: string;
  /** How its requests are paced, in words (docs/providers.md). */
  pacing: string;
  capabilities: readonly Capability[];
  /** Terms one comparison may hold (Google's explore: 5). */
  termsPerRequest: number;
  /** Whether its answers cost money (then counted per run and per refresh). */
  paid: boolean;
  /** What its quota counts, when it is free but metered (the Trends API: data points): counted per day and run like a bill. */
  meteredIn?: 'data points';
  /**
   * Assumed price per request in US dollars, by what is asked, for estimates
   * only (the refresh's cost per insight in `insights budget`). What a run
   * spent is what the provider billed, read from each answer's `cost`.
   */
  priceUsd: Partial<Record<'explore' | 'searchVolume', number>>;
  /** Where its answers came from, in a live insight's source line ("live Google Trends"). */
  source: string;
  /** Its name as a client reads it, in a failed run's error and a waiting run's reason ("Google Trends", "DataForSEO"). */
  publicName: string;
  /** Where a related list it answered was read from, as the dimensions' evidence names it. */
  listedBy: string;
  /** The markets (ISO 3166-1 codes) it can be asked about besides worldwide; unset: every market. */
  markets?: readonly string[];
  /** The term ideas are compared with when it answers the series, unless TRENDS_ANCHOR names one (replay: one it recorded). */
  anchor?: string;
  /**
   * Its series are on one scale across requests (the Trends API's searchInterest): demand is read from the
   * phrase's own values against `reference` (the 12-month mean that scores 0.5), no anchor term is asked, and
   * the maps are the phrase's own. Its answers say the scale's value behind their 100 (provenance.scalePeak).
   */
  comparableScale?: ComparableScale;
  /**
   * Asked through the trends queue (one pace for every worker), not directly by the asking process. The queue is
   * live Google's (its worker asks Google's client and egress pool), so one provider at most says so:
   * queuedProviderOf in src/providers/registry.ts refuses a second at start.
   */
  queued?: boolean;
  /** A queued provider's requests a research run makes, by request plan (TRENDS_REQUEST_PLAN): when a queued run starts and ends. */
  requestsPerRun?: Readonly<Record<string, number>>;
  /** Its configuration section: read by config.ts (config.providerSettings[name]), declared here. */
  settings(read: SettingsReader, configured: readonly string[]): Settings;
}
