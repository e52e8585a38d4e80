// What `npm start` says on a machine with no Redis: no server answers and
// redis-server is not on PATH. The message names both and how to fix it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/free-port.js';
import { ensureLocalRedis, RedisUnavailableError } from '../../src/redis/embedded-redis.js';

describe('the embedded Redis default', () => {
  it('stops with a message saying how to install Redis when none answers and redis-server is not on PATH', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'si-no-redis-'));
    const port = await freePort(); // nothing listens there
    const savedPath = process.env.PATH;
    process.env.PATH = dataDir; // an empty folder: no redis-server on PATH
    try {
      const attempt = ensureLocalRedis(dataDir, port);
      await expect(attempt).rejects.toBeInstanceOf(RedisUnavailableError);
      await expect(attempt).rejects.toThrow(
        `No Redis answers on 127.0.0.1:${port} and redis-server is not on PATH — install it (apt-get install redis-server, or brew install redis) or set REDIS_URL`,
      );
    } finally {
      process.env.PATH = savedPath;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
