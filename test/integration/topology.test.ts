// Many processes, one truth: 2 web and 2 worker processes on a 3-master Redis
// Cluster and a Postgres primary with a streaming replica (scripts/topology:
// the same topology `npm run topology` starts for a person).
import http from 'node:http';
import { Queue } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTopology, type Topology } from '../../scripts/topology/topology.js';
import { createDb, type Db } from '../../src/db/connection.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { redisKeys } from '../../src/redis/keys.js';
import { until } from '../support/pipeline.js';

let topology: Topology;
let db: Db;

beforeAll(async () => {
  topology = await startTopology({
    extraEnv: { SYNTHETIC_LATENCY_MS: '20', JOB_LOCK_MS: '4000', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCALE: '0.001' },
  });
  db = createDb(topology.env.DATABASE_URL!);
}, 240_000);
afterAll(async () => {
  await db?.destroy();
  await topology?.stop();
});

const get = (base: string, path: string, key: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) });

async function newKey(plan: string): Promise<{ id: string; key: string }> {
  const out = await topology.cli(['keys', 'create', '--name', `topology ${plan}`, '--plan', plan, '--json']);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as { id: string; key: string };
}

describe('2 web and 2 worker processes on a Redis Cluster and a Postgres replica', () => {
  it("grants a Free account's two keys exactly 100 of 200 concurrent requests spread over both web processes", async () => {
    const account = await topology.cli(['accounts', 'create', '--name', 'topology account', '--plan', 'free', '--json']);
    expect(account.code, account.stderr).toBe(0);
    const accountId = (JSON.parse(account.stdout) as { id: string }).id;
    const keys: string[] = [];
    for (const name of ['staging', 'production']) {
      const out = await topology.cli(['keys', 'create', '--account', accountId, '--name', name, '--json']);
      expect(out.code, out.stderr).toBe(0);
      keys.push((JSON.parse(out.stdout) as { key: string }).key);
    }
    // A 503 (a web process shedding load on a busy machine) is asked again, as a client would: it counts no quota.
    const ask = async (i: number): Promise<number> => {
      for (let attempt = 0; ; attempt += 1) {
        const status = (await get(topology.webUrls[i % 2]!, '/api/sources', keys[Math.floor(i / 2) % 2]!)).status;
        if (status !== 503 || attempt === 20) return status;
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => ask(i)));
    const counts = statuses.reduce<Record<number, number>>((c, s) => ({ ...c, [s]: (c[s] ?? 0) + 1 }), {});
    expect(counts).toEqual({ 200: 100, 429: 100 });
  });

  it('refuses a revoked key on both web processes within a second', async () => {
    const { id, key } = await newKey('pro');
    for (const base of topology.webUrls) expect((await get(base, '/api/sources', key)).status).toBe(200); // cached in both
    const revoked = await topology.cli(['keys', 'revoke', id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const at = Date.now();
    await Promise.all(
      topology.webUrls.map((base) =>
        until(
          () => get(base, '/api/sources', key).then((r) => r.status),
          (s) => s === 401,
          10_000,
          `401 from ${base}`,
        ),
      ),
    );
    // The CLI returns after announcing; both processes have dropped the key by then or moments after.
    expect(Date.now() - at).toBeLessThan(1_000);
  });

  it('completes 20 research runs, 40 steps each, through a kill -9 of one worker', async () => {
    // Enqueued one CLI process at a time, each run would finish before the next is
    // enqueued; held until all 20 are in, they run together and the kill lands mid-way.
    const done = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from research_steps where status = 'done'`.execute(db)).rows[0]!.n;
    const connection = createRedis({ cluster: topology.cluster.seeds }, 'worker');
    const research = new Queue(QUEUES.research, { connection, prefix: redisKeys(topology.env.REDIS_PREFIX!).queuePrefix(QUEUES.research) });
    try {
      await research.pause();
      for (let i = 0; i < 20; i += 1) {
        const out = await topology.cli(['research', `Topology idea ${i} for weekend sailors`, '--json']);
        expect(out.code, out.stderr).toBe(0);
      }
      expect(await done()).toBe(0); // held: no worker took a step yet
    } finally {
      await research.resume();
      await research.close();
      connection.disconnect();
    }
    await until(done, (n) => n >= 200, 120_000, 'the runs to be under way');
    topology.workers[0]!.child.kill('SIGKILL');
    expect(await done()).toBeLessThan(800); // its runs' locked jobs cannot finish before their lock (4 s) runs out
    await until(
      () => db.selectFrom('research_runs').select('status').execute(),
      (rows) => rows.length === 20 && rows.every((r) => r.status === 'succeeded'),
      180_000,
      'every run',
    );
    const { rows } = await sql<{
      n: number;
      steps: number;
    }>`select count(*)::int as n, count(distinct step)::int as steps from research_steps where status = 'done' group by run_id`.execute(db);
    expect(rows.map((r) => [r.n, r.steps])).toEqual(Array(20).fill([40, 40]));
    topology.workers[0] = await topology.startWorker();
  }, 300_000);

  it('delivers every (event, subscription) pair once, retries keeping the webhook-id', async () => {
    const seen = new Map<string, { ids: Set<string>; ok: number; attempts: number }>();
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const pair = `${req.url}|${String(req.headers['webhook-id'])}`;
        const entry = seen.get(pair) ?? { ids: new Set(), ok: 0, attempts: 0 };
        entry.attempts += 1;
        entry.ids.add(String(req.headers['webhook-id']));
        // Every first attempt fails: each delivery is retried once.
        const status = entry.attempts === 1 ? 500 : 200;
        if (status === 200) entry.ok += 1;
        seen.set(pair, entry);
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as { port: number }).port;
    for (const name of ['a', 'b']) {
      const out = await topology.cli([
        'webhooks',
        'add',
        '--url',
        `http://127.0.0.1:${port}/${name}`,
        '--event',
        'insight.created',
        '--json',
      ]);
      expect(out.code, out.stderr).toBe(0);
    }
    const before = await db.selectFrom('research_runs').select('id').execute();
    for (let i = 0; i < 5; i += 1)
      expect((await topology.cli(['research', `Topology webhook idea ${i} for anglers`, '--json'])).code).toBe(0);
    await until(
      () => db.selectFrom('research_runs').select('status').execute(),
      (rows) => rows.length === before.length + 5 && rows.every((r) => r.status === 'succeeded'),
      180_000,
      'the runs',
    );
    await until(
      async () => [...seen.values()].filter((e) => e.ok > 0).length,
      (n) => n === 10,
      120_000,
      '10 delivered pairs',
    );
    for (const [pair, entry] of seen) {
      expect(entry.ok, pair).toBe(1); // delivered exactly once
      expect(entry.attempts, pair).toBe(2); // after one retry
    }
    receiver.closeAllConnections();
    receiver.close();
  }, 300_000);

  it('stops every process cleanly on SIGTERM', async () => {
    const exits = await topology.stop();
    expect(exits.length).toBe(4);
    for (const e of exits) expect(e.code, e.process).toBe(0);
  }, 120_000);
});
