// What each egress route spent and how Google answered it, read from the pool's Redis state (egress-pool.ts):
// `insights budget`, /metrics and the web process read it; nothing here sends anything.
import type { Redis } from '../../../redis/connection.js';
import type { EgressRoute } from './routes.js';
import { BLOCK_KINDS, ENDPOINT_FAMILIES, type BlockKind, type EndpointFamily } from '../families.js';

/** A route's state as ops see it. */
export const ROUTE_STATES = ['open', 'cooling', 'probing', 'refused', 'consent'] as const;
export type RouteState = (typeof ROUTE_STATES)[number];

/** An endpoint family's state on a route: blocks and their cooldowns are per family. */
export interface FamilyState {
  state: Extract<RouteState, 'open' | 'cooling' | 'probing'>;
  forMs: number;
  /** Requests of the family sent that day (UTC). */
  requests: number;
}

/** How Google answered a job, for the day's counts. */
export const BOOKED_OUTCOMES = ['answers', 'blocked', 'refused', 'changed', 'errors', 'over_quota'] as const;
export type BookedOutcome = (typeof BOOKED_OUTCOMES)[number];

export interface RouteBudget {
  route: string;
  /** HTTPS requests sent in the last 60 minutes. */
  requestsLastHour: number;
  /** HTTPS requests sent on the day (UTC). */
  requests: number;
  answers: number;
  blocked: number;
  refused: number;
  changed: number;
  errors: number;
  state: RouteState;
  /** How long the state lasts still (cooling, refused), 0 otherwise. */
  stateForMs: number;
  /** Blocks in a row (the cooldown doubles with each). */
  streak: number;
  /** Cooldowns started, and probes sent after them, since the route's state was created. */
  cooldowns: number;
  probes: number;
  /** Blocks that day by how Google answered them. */
  blocksByKind: Record<BlockKind, number>;
  /** Embed pages sent that day, and tokens over the embed quota. */
  embedRequests: number;
  overQuota: number;
  /** How long the route's embed pages still wait after an over-quota token (0: open). */
  embedWaitMs: number;
  /** How Google labelled the route's client in its latest token (userConfig.userType), and since when. */
  userType: string | null;
  userTypeSince: string | null;
  /** Each endpoint family's state (a block of one leaves the others open). */
  families: Record<EndpointFamily, FamilyState>;
  /**
   * Whether Google blocks an address whole rather than one family at a time, as the pool learned from two families
   * of one route blocked at once (lua/egress-pool.blocked-2.lua); a block then cools the whole route.
   */
  blocksWholeRoute: boolean;
  /** The explore family's bucket: tokens now, its learned refill a minute, and Google's rate-limit 429s that taught it. */
  exploreBucket: { tokens: number; refillPerMinute: number; rateLimits: number };
}

/** One route's budget and state now; `spent` is the day's counts of the pool (every route's). */
export async function routeBudget(
  redis: Redis,
  at: {
    route: EgressRoute;
    key: string;
    sentKey: string;
    /** The pool's mark that Google's blocks cover the whole address (set for a day). */
    blocksWholeKey: string;
    spent: Record<string, string>;
    now: number;
    burst: number;
    firstRefill: number;
  },
): Promise<RouteBudget> {
  const { route, key, spent, now } = at;
  const [refused, cool, needsProbe, streak, cooldowns, probes, embedCool, userType, userTypeSince, consent] = await redis.hmget(
    key,
    'refused_until',
    'cool_until',
    'needs_probe',
    'streak',
    'cooldowns',
    'probes',
    'embed_cool_until',
    'user_type',
    'user_type_since',
    'consent_until',
  );
  const perFamily = await redis.hmget(key, ...ENDPOINT_FAMILIES.flatMap((f) => [`cool_until:${f}`, `needs_probe:${f}`]));
  const [tokens, bucketAt, refill, rateLimits] = await redis.hmget(key, 'bucket_tokens', 'bucket_at', 'bucket_refill', 'bucket_429s');
  const blocksWhole = (await redis.exists(at.blocksWholeKey)) === 1;
  const lastHour = await redis.zcount(at.sentKey, now - 3_600_000, '+inf');
  const n = (field: string) => Number(spent[`${route.name}|${field}`] ?? 0);
  const routeCool = Number(cool ?? 0);
  const families = Object.fromEntries(
    ENDPOINT_FAMILIES.map((family, i): [EndpointFamily, FamilyState] => {
      const coolFor = Math.max(routeCool, Number(perFamily[2 * i] ?? 0)) - now;
      const state = coolFor > 0 ? 'cooling' : needsProbe === '1' || perFamily[2 * i + 1] === '1' ? 'probing' : 'open';
      return [family, { state, forMs: Math.max(0, coolFor), requests: n(`requests_${family}`) }];
    }),
  ) as Record<EndpointFamily, FamilyState>;
  const refusedFor = Number(refused ?? 0) - now;
  // The route reads as cooling (or probing) while any of its families does: `families` says which, and the others still serve.
  const coolFor = Math.max(routeCool - now, ...Object.values(families).map((f) => f.forMs));
  const probing = Object.values(families).some((f) => f.state === 'probing');
  const consentFor = Number(consent ?? 0) - now;
  const state: RouteState =
    consentFor > 0 ? 'consent' : refusedFor > 0 ? 'refused' : coolFor > 0 ? 'cooling' : probing ? 'probing' : 'open';
  const refillPerMinute = Number(refill ?? at.firstRefill);
  const tokensNow =
    tokens === null ? at.burst : Math.min(at.burst, Number(tokens) + ((now - Number(bucketAt ?? now)) * refillPerMinute) / 60_000);
  return {
    route: route.name,
    requestsLastHour: lastHour,
    requests: n('requests'),
    answers: n('answers'),
    blocked: n('blocked'),
    refused: n('refused'),
    changed: n('changed'),
    errors: n('errors'),
    state,
    stateForMs: state === 'consent' ? consentFor : state === 'refused' ? refusedFor : state === 'cooling' ? coolFor : 0,
    streak: Number(streak ?? 0),
    cooldowns: Number(cooldowns ?? 0),
    probes: Number(probes ?? 0),
    blocksByKind: Object.fromEntries(BLOCK_KINDS.map((k) => [k, n(`blocked_${k}`)])) as Record<BlockKind, number>,
    embedRequests: n('embed_requests'),
    overQuota: n('over_quota'),
    embedWaitMs: Math.max(0, Number(embedCool ?? 0) - now),
    userType: userType ?? null,
    userTypeSince: userTypeSince ?? null,
    families,
    blocksWholeRoute: blocksWhole,
    exploreBucket: {
      tokens: Math.floor(tokensNow),
      refillPerMinute: Math.round(refillPerMinute * 10) / 10,
      rateLimits: Number(rateLimits ?? 0),
    },
  };
}
