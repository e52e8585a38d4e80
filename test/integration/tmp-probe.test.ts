import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { bearer } from '../support/app.js';
import { createTestDatabase } from '../support/database.js';
import { insertInsight } from '../support/fixtures.js';
import { createTestRedis } from '../support/redis.js';

it('probe rss', async () => {
  const database = await createTestDatabase();
  const redis = await createTestRedis();
  for (let i = 0; i < 100; i += 1) await insertInsight(database.db, { score: i / 100, title: `Insight ${i} ${'x'.repeat(300)}` });
  const key = (await createApiKey(database.db, 'rss', 'enterprise')).key;
  for (const flags of [(process.env.FLAGS ?? '').split(' ').filter(Boolean)]) {
    const web = new ServiceProcess('web', { ...database.env, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, PORT: '0', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', ADMIN_TOKEN: 'probe-admin-token-0123456789abcdef' }, { nodeFlags: flags });
    const base = (await web.ready).url!;
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${web.pid}/status`, 'utf8'))![1]) / 1024;
    for (let i = 0; i < 20; i++) await (await fetch(`${base}/api/insights?limit=100`, { headers: bearer(key) })).arrayBuffer();
    const before = rss();
    let peak = before;
    for (let b = 0; b < 5000; b += 50) {
      await Promise.all(Array.from({ length: 50 }, async (_, j) => {
        const r = await fetch(`${base}/api/insights?limit=100&min_score=0.${String(b + j).padStart(7, '0')}1`, { headers: bearer(key) });
        await r.arrayBuffer();
      }));
      peak = Math.max(peak, rss());
    }
    const metrics = await (await fetch(`${base}/metrics`, { headers: bearer('probe-admin-token-0123456789abcdef') })).text();
    const pick = (name: string) => metrics.split('\n').filter((l) => l.startsWith(name)).join(' ; ');
    console.log(`flags [${flags.join(' ')}]: rss before ${before.toFixed(0)} peak ${peak.toFixed(0)} after ${rss().toFixed(0)} MB`);
    console.log(pick('api_response_cache_bytes'), '|', pick('nodejs_heap_size_used_bytes'), '|', pick('nodejs_heap_size_total_bytes'), '|', pick('nodejs_external_memory_bytes'));
    console.log(pick('nodejs_heap_space_size_used_bytes'));
    await web.kill('SIGTERM');
  }
  await redis.destroy();
  await database.destroy();
}, 600_000);
