// The loopback Google's "autumn-2026" scenario: Google as measured elsewhere
// than the August-2026 picture the default scenario draws (server.ts). Chosen
// with `scenario: 'autumn-2026'`; every behaviour with its source:
//
// - the home page `https://trends.google.com/` answers 301 with no cookie;
//   `/trends/` and `/trending` hand out NID, and so does the 429 a cookieless
//   (or stale-cookie) API call gets: a "cookie gate", passed by sending the
//   request again at once with the new cookie (youseiushida/gtrends,
//   `live_integration/`, 2026-09-09). NID rotates: every served API answer
//   sets a new one (the old ones stay good);
// - the explore family (`/trends/api/explore`) is limited per address as a
//   token bucket: a burst of `burst` (about 90) refilled at `refillPerMinute`
//   (60–120 a minute, drawn per address), an empty bucket answering a plain
//   429 with no new cookie and no Retry-After (gtrends, 2026-09-09: no
//   Retry-After on any answer);
// - a second request of one address while one of its explore-family requests
//   is in flight escalates to the 302 `/sorry` block of that family only
//   (`familyBlockMs`); autocomplete, widgetdata and the trending feed keep
//   answering (gtrends, 2026-09-09: blocks per endpoint family). Any family
//   of an address can be blocked by hand (`blockFamily`: explore, widgetdata,
//   autocomplete, embed, trending), the others answering on;
// - widget tokens sign the exact request: any edit of a widget's `req` is a 401
//   (gtrends' error tests, 2026-09-09);
// - explore's own related-queries widget serves its lists, related topics stay
//   empty; the embed flow is over quota on every page, whatever the pace
//   (reports of a persistent embed quota, 2026: over quota after 120 s
//   pauses, for a week, on other networks);
// - an address in `euClients` (an egress route in the EU: the loopback proxy
//   each route leaves through has an address of its own, proxy.ts) is
//   redirected to consent.google.com on every request until it sends a
//   consent cookie (SOCS or CONSENT; an actor's fix with pre-seeded CONSENT
//   cookies, 2026-05-13);
// - a term with too little data is zeros with hasData true (an all-zero
//   series, no flag saying so);
// - every answer takes `latencyMs`, so requests of one address can overlap, and
//   the most that overlapped per address is counted (`maxInFlight`).
import { createHash } from 'node:crypto';

export interface Autumn2026Options {
  /** The explore family's burst per address; default 90. */
  burst?: number;
  /** Refill per minute (of `windowMs`), drawn per address between these; default 60–120. */
  refillPerMinute?: readonly [number, number];
  /** How long the explore family's /sorry block lasts after parallel requests; default 30 minutes (of windowMs). */
  familyBlockMs?: number;
  /** Addresses answered with the EU consent page until they send a consent cookie. */
  euClients?: readonly string[];
  /** How long each answer takes, so requests of one address can overlap; default 30 ms. */
  latencyMs?: number;
}

/** Google's endpoint families as gtrends found them blocked one by one (2026-09-09). */
export type LoopbackFamily = 'explore' | 'widgetdata' | 'autocomplete' | 'embed' | 'trending';

/** The family of a request the loopback tells apart by its kind (server.ts). */
export function familyOfKind(kind: string): LoopbackFamily | undefined {
  if (kind === 'explore' || kind === 'page') return 'explore';
  if (kind === 'multiline' || kind === 'comparedgeo' || kind === 'relatedsearches') return 'widgetdata';
  if (kind === 'autocomplete' || kind === 'embed') return kind;
  if (kind === 'trending_rss' || kind === 'trending_rpc' || kind === 'trending_page') return 'trending';
  return undefined;
}

interface Bucket {
  tokens: number;
  at: number;
  refillPerMs: number;
}

/** What the scenario decided for one request before the usual handling. */
export type AutumnVerdict =
  | { refusal: 'consent-302'; status: 302; location: string }
  | { refusal: 'family-sorry-302'; status: 302; location: string }
  | { refusal: 'rate-limit-429'; status: 429 };

export class Autumn2026 {
  /** Requests of each address being answered now, and the most that ever were at once. */
  readonly inFlight = new Map<string, number>();
  readonly maxInFlight = new Map<string, number>();
  /** Widget requests that were not the request their token signed (each answered 401). */
  editedWidgetRequests = 0;
  private readonly exploreInFlight = new Map<string, number>();
  private readonly buckets = new Map<string, Bucket>();
  /** Blocks by address and endpoint family (`address|family`). */
  private readonly familyBlockedUntil = new Map<string, number>();
  /** Requests answered with a family's /sorry block, by family. */
  readonly familyBlocked = new Map<LoopbackFamily, number>();

  constructor(
    readonly options: Autumn2026Options,
    /** The scenario's minute (tests scale time down). */
    private readonly windowMs: number,
  ) {}

  get latencyMs(): number {
    return this.options.latencyMs ?? 30;
  }

  /** The request arrived: counted in flight until `settled`. */
  arrived(client: string, explore: boolean): void {
    const now = (this.inFlight.get(client) ?? 0) + 1;
    this.inFlight.set(client, now);
    this.maxInFlight.set(client, Math.max(this.maxInFlight.get(client) ?? 0, now));
    if (explore) this.exploreInFlight.set(client, (this.exploreInFlight.get(client) ?? 0) + 1);
  }

  settled(client: string, explore: boolean): void {
    this.inFlight.set(client, (this.inFlight.get(client) ?? 1) - 1);
    if (explore) this.exploreInFlight.set(client, (this.exploreInFlight.get(client) ?? 1) - 1);
  }

  /**
   * Before the usual handling: the consent wall, the explore family's block
   * (started by parallel requests), and its token bucket. `explore`: the
   * request is of the explore family; `cookie`: it carries a valid NID.
   */
  verdict(
    client: string,
    url: URL,
    cookieHeader: string | undefined,
    explore: boolean,
    cookie: boolean,
    now: number,
    family?: LoopbackFamily,
  ): AutumnVerdict | undefined {
    if (this.options.euClients?.includes(client) && !/(?:^|;\s*)(SOCS|CONSENT)=/.test(cookieHeader ?? '')) {
      return {
        refusal: 'consent-302',
        status: 302,
        location: `https://consent.google.com/ml?continue=${encodeURIComponent(url.toString())}&gl=DE&hl=de&pc=t&src=1`,
      };
    }
    const sorry = {
      refusal: 'family-sorry-302' as const,
      status: 302 as const,
      location: `https://www.google.com/sorry/index?continue=${encodeURIComponent(url.toString())}`,
    };
    if (family && (this.familyBlockedUntil.get(`${client}|${family}`) ?? 0) > now) {
      this.familyBlocked.set(family, (this.familyBlocked.get(family) ?? 0) + 1);
      return sorry;
    }
    if (!explore) return undefined;
    // arrived() has counted this one: another explore-family request of the address is still being answered.
    if ((this.exploreInFlight.get(client) ?? 0) > 1) {
      this.blockFamily(client, 'explore', this.options.familyBlockMs ?? 30 * this.windowMs, now);
      this.familyBlocked.set('explore', (this.familyBlocked.get('explore') ?? 0) + 1);
      return sorry;
    }
    // The bucket counts requests that carry the cookie; a cookieless one meets the cookie gate first.
    if (!cookie) return undefined;
    const bucket = this.bucket(client, now);
    if (bucket.tokens < 1) return { refusal: 'rate-limit-429', status: 429 };
    bucket.tokens -= 1;
    return undefined;
  }

  /** Blocks one endpoint family of an address for `ms` (its /sorry redirect); its other families answer on. */
  blockFamily(client: string, family: LoopbackFamily, ms: number, now = Date.now()): void {
    this.familyBlockedUntil.set(`${client}|${family}`, now + ms);
  }

  /** The explore family's bucket of an address, refilled to now. */
  private bucket(client: string, now: number): Bucket {
    const burst = this.options.burst ?? 90;
    let bucket = this.buckets.get(client);
    if (!bucket) {
      const [low, high] = this.options.refillPerMinute ?? [60, 120];
      const perMinute = low + (createHash('sha1').update(client).digest().readUInt32LE(0) / 2 ** 32) * (high - low);
      bucket = { tokens: burst, at: now, refillPerMs: perMinute / this.windowMs };
      this.buckets.set(client, bucket);
    }
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * bucket.refillPerMs);
    bucket.at = now;
    return bucket;
  }

  /** The request a token signs, as compared: its JSON written again (key order kept, as the client echoes it). */
  static signature(request: unknown): string {
    return createHash('sha256').update(JSON.stringify(request)).digest('base64url').slice(0, 16);
  }
}
