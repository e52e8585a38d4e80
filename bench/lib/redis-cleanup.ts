// Benchmarks (and test files) run against the developer's or CI's own Redis: each removes
// every key of its prefix when it is done, the workers' too (queues, job
// schedulers, read-model version, egress routes), so runs do not pile up.
import type { Redis } from '../../src/redis/connection.js';

/** Deletes every key of `prefix` (hash-tagged keys start with "{", hence the leading wildcard). */
export async function removePrefixKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `*${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) await redis.del(...found);
  } while (cursor !== '0');
}
