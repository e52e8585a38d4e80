// The read-model version: a number in Redis that every write to what the API
// shows increments. Cached API responses are keyed by it, so one increment
// invalidates every web process's cache at once.
//
// Writers bump it and publish the new value in one script. Web processes keep
// the latest value in memory from those messages (ReadModelVersionWatcher), so
// a cached response for an unlimited plan needs no Redis round trip at all;
// while the watcher is not in sync (starting, Redis reconnecting) it reports
// no version and the API asks Redis on every request, as limited plans always do.
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { RedisKeys } from './keys.js';

/**
 * Lua that sets `version` to the read-model version at `key` (e.g. "KEYS[2]"),
 * creating it from the clock when Redis has none (a fresh or flushed Redis),
 * so versions keep growing across a Redis reset.
 */
export function readOrCreateVersionLua(key: string): string {
  return `
local version = redis.call('GET', ${key})
if not version then
  local t = redis.call('TIME')
  redis.call('SET', ${key}, t[1] .. string.format('%06d', t[2]), 'NX')
  version = redis.call('GET', ${key})
end`;
}

const READ_SCRIPT = `${readOrCreateVersionLua('KEYS[1]')}
return version
`;

const BUMP_SCRIPT = `${readOrCreateVersionLua('KEYS[1]')}
version = redis.call('INCR', KEYS[1])
redis.call('PUBLISH', ARGV[1], version)
return version
`;

/** Writers call this after committing a change that API responses may show. */
export async function bumpReadModelVersion(redis: Redis, keys: RedisKeys): Promise<void> {
  await redis.eval(BUMP_SCRIPT, 1, keys.readModelVersion, keys.readModelChannel);
}

export class ReadModelVersionWatcher {
  private version: number | undefined;
  private messagesSeen = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly logger?: Logger,
    /** A full re-read now and then bounds the damage of anything missed. */
    private readonly resyncMs = 5_000,
  ) {}

  /** The latest version, or undefined while not known to be in sync. */
  current(): string | undefined {
    return this.version === undefined ? undefined : String(this.version);
  }

  /** Subscribes on `subscriber` (a connection of its own). Returns a function that stops. */
  async listen(subscriber: Redis): Promise<() => Promise<void>> {
    const channel = this.keys.readModelChannel;
    const onMessage = (ch: string, message: string) => {
      if (ch !== channel) return;
      this.messagesSeen += 1;
      const v = Number(message);
      // Versions only grow; a late, older message must not win.
      if (Number.isFinite(v) && this.version !== undefined && v > this.version) this.version = v;
    };
    // Out of touch: no version until re-read after the subscription is back.
    const onLost = () => (this.version = undefined);
    const onReady = () => void this.resync();
    subscriber.on('message', onMessage);
    subscriber.on('close', onLost);
    subscriber.on('reconnecting', onLost);
    subscriber.on('ready', onReady);
    await subscriber.subscribe(channel);
    await this.resync();
    this.timer = setInterval(() => void this.resync(), this.resyncMs);
    this.timer.unref();
    return async () => {
      clearInterval(this.timer);
      subscriber.off('message', onMessage);
      subscriber.off('close', onLost);
      subscriber.off('reconnecting', onLost);
      subscriber.off('ready', onReady);
      this.version = undefined;
      await subscriber.unsubscribe(channel).catch(() => {});
    };
  }

  /** Reads the version from Redis (authoritative: Redis may have been reset). */
  private async resync(): Promise<void> {
    const seenBefore = this.messagesSeen;
    try {
      const stored = (await this.redis.eval(READ_SCRIPT, 1, this.keys.readModelVersion)) as string;
      // A message that arrived meanwhile is at least as new as what was read.
      if (this.messagesSeen !== seenBefore && this.version !== undefined) return;
      this.version = Number(stored);
    } catch (error) {
      this.version = undefined;
      this.logger?.debug({ err: error }, 'read-model version resync failed');
    }
  }
}
