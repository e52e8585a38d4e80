// Each egress route's Google cookie and what the route learned of how Google answers it, in Redis.
// It is the Google client's CookieJar (src/providers/google/cookie-jar.ts) by shape: the client checks it
// where it is handed the jar, so the pool below the client need not import the client's types.
import type { Redis } from '../../../redis/connection.js';

/** The route's NID cookie in Redis, shared by every process and kept across restarts (trendspyg 1.6.0 keeps a jar for the same reason). */
export class RedisCookieJar {
  constructor(
    private readonly redis: Redis,
    private readonly key: (route: string) => string,
  ) {}

  /** What the route learned of how Google answers it (a RouteFact of the client's cookie-jar.ts), beside its cookie. */
  async learned(route: string, fact: string): Promise<string | undefined> {
    return (await this.redis.hget(`${this.key(route)}:learned`, fact)) || undefined;
  }

  async learn(route: string, fact: string, value: string): Promise<void> {
    await this.redis
      .multi()
      .hset(`${this.key(route)}:learned`, fact, value)
      .expire(`${this.key(route)}:learned`, 30 * 86_400)
      .exec();
  }

  async get(route: string): Promise<string | undefined> {
    return (await this.redis.get(this.key(route))) ?? undefined;
  }

  async set(route: string, cookie: string): Promise<void> {
    // Google's NID lasts about six months; a route unused for a month warms up again.
    await this.redis.set(this.key(route), cookie, 'EX', 30 * 86_400);
  }
}
