// The read-model version: a number in Redis that every write to what the API
// shows increments. Cached API responses are keyed by it, so one increment
// invalidates every web process's cache at once.
//
// Writers bump it and publish the new value in one script, together with the
// Postgres WAL position of their commit (the LSN): a web process reading from
// a replica reads there only once the replica has replayed that far, so a
// response cached under a version always holds that version's writes.
//
// Web processes keep the latest value in memory from those messages
// (ReadModelVersionWatcher), so a cached response for an unlimited plan needs
// no Redis round trip at all; while the watcher is not in sync (starting,
// Redis reconnecting) it reports no version and the API asks Redis on every
// request, as limited plans always do.
import { currentLsn, type Db } from '../db/connection.js';
import type { Logger } from '../logger.js';
import type { Redis } from './connection.js';
import type { RedisKeys } from './keys.js';
import { SCRIPTS } from './scripts.js';

/** The version responses are cached under, and the WAL position its writes reached ('' when unknown). */
export interface ReadModelState {
  version: string;
  lsn: string;
}

// The scripts (lua/read-model.*.lua) create the version from the clock when
// Redis has none (a fresh or flushed Redis), so versions keep growing across a reset.
const { read: READ, bump: BUMP } = SCRIPTS.readModel;

/** Writers call this after committing a change that API responses may show. */
export async function bumpReadModelVersion(redis: Redis, keys: RedisKeys, db?: Db): Promise<void> {
  const lsn = db ? await currentLsn(db) : '';
  await BUMP.run(redis, [keys.readModelVersion, keys.readModelLsn], [keys.readModelChannel, lsn]);
}

/** The current version and its WAL position, read from Redis (authoritative). */
export async function readReadModel(redis: Redis, keys: RedisKeys): Promise<ReadModelState> {
  const [version, lsn] = await READ.run(redis, [keys.readModelVersion, keys.readModelLsn], []);
  return { version, lsn };
}

export class ReadModelVersionWatcher {
  private version: number | undefined;
  private lsn = '';
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

  /** The WAL position of the latest version's writes ('' when unknown). */
  currentLsn(): string {
    return this.lsn;
  }

  /** Subscribes on `subscriber` (a connection of its own). Returns a function that stops. */
  async listen(subscriber: Redis): Promise<() => Promise<void>> {
    const channel = this.keys.readModelChannel;
    const onMessage = (ch: string, message: string) => {
      if (ch !== channel) return;
      this.messagesSeen += 1;
      const [raw, lsn = ''] = message.split(' ');
      const v = Number(raw);
      // Versions only grow; a late, older message must not win.
      if (Number.isFinite(v) && this.version !== undefined && v > this.version) {
        this.version = v;
        if (lsn) this.lsn = lsn;
      }
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
      const stored = await readReadModel(this.redis, this.keys);
      // A message that arrived meanwhile is at least as new as what was read.
      if (this.messagesSeen !== seenBefore && this.version !== undefined) return;
      this.version = Number(stored.version);
      this.lsn = stored.lsn;
    } catch (error) {
      this.version = undefined;
      this.logger?.debug({ err: error }, 'read-model version resync failed');
    }
  }
}
