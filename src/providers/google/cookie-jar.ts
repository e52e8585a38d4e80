// The NID cookie of each egress route, and what the route learned of how
// Google answers it (the page that hands out its cookie, whether Google signs
// widget requests). Split from client.ts, which reads and writes them.
/**
 * The NID cookie of each egress route: each route is a different client to
 * Google. Shared by every process (Redis, see egress-pool.ts) so a restart or
 * another worker does not spend a page load to learn it again.
 */
export interface CookieJar {
  get(route: string): Promise<string | undefined>;
  /** Keeps the route's newest cookie; a cookie Google refused is replaced only once a new one is handed out. */
  set(route: string, cookie: string): Promise<void>;
  /** What the route learned of how Google answers it (see RouteFact); undefined: not learned yet. */
  learned?(route: string, fact: RouteFact): Promise<string | undefined>;
  learn?(route: string, fact: RouteFact, value: string): Promise<void>;
}

/**
 * What a route learns from Google's answers and keeps beside its cookie:
 * `warm_up`, the page that last handed it a cookie (a path, or `cookie-gate`
 * when a cookieless API call's 429 did). (`signed_widgets` is no longer
 * learned since 2026-11-29: no widget request is ever edited.)
 */
export type RouteFact = 'warm_up';
/** `warm_up` when the route's cookie came from a cookie-gate 429 (gtrends, 2026-09-09). */
export const COOKIE_GATE = 'cookie-gate';

/** A jar in this process's memory: `insights google check`, and tests of the client alone. */
export class MemoryCookieJar implements CookieJar {
  private readonly cookies = new Map<string, string>();
  private readonly facts = new Map<string, string>();
  async get(route: string) {
    return this.cookies.get(route);
  }
  async set(route: string, cookie: string) {
    this.cookies.set(route, cookie);
  }
  async learned(route: string, fact: RouteFact) {
    return this.facts.get(`${route}|${fact}`);
  }
  async learn(route: string, fact: RouteFact, value: string) {
    this.facts.set(`${route}|${fact}`, value);
  }
  clear(route?: string) {
    if (route === undefined) {
      this.cookies.clear();
      this.facts.clear();
    } else {
      this.cookies.delete(route);
      for (const key of [...this.facts.keys()]) if (key.startsWith(`${route}|`)) this.facts.delete(key);
    }
  }
}

/** The jar of a session given none. */
export const processJar = new MemoryCookieJar();

/** Forgets this process's own cookies (a Google of one's own in tests). */
export function forgetGoogleCookies(route?: string): void {
  processJar.clear(route);
}
