// The API on a Postgres streaming replica (DATABASE_READ_URL) that lags: a
// real replica made with pg_basebackup, replaying 3 s behind the primary
// (recovery_min_apply_delay). A research run that finishes shows its insight
// at once (the web process reads the primary until the replica has replayed
// the run's writes), and reads go to the replica once it has. `insights
// doctor` shows how far the replica is behind.
import { Queue } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalPostgres } from '../../scripts/lib/local-postgres.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { createDb, type Db } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { measureReplicaLag } from '../../src/db/read-router.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { bumpReadModelVersion } from '../../src/redis/read-model-version.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { runCli } from '../support/cli.js';
import { until } from '../support/pipeline.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

let primary: LocalPostgres;
let replica: LocalPostgres;
let db: Db;
let replicaDb: Db;
let redis: TestRedis;

beforeAll(async () => {
  primary = await LocalPostgres.create();
  const bootstrap = createDb(primary.url, { maxConnections: 1 });
  await sql`create database app`.execute(bootstrap);
  await bootstrap.destroy();
  db = createDb(primary.urlFor('app'));
  await migrateToLatest(db);
  replica = await primary.startReplica({ applyDelay: '3s' });
  replicaDb = createDb(replica.urlFor('app'));
  redis = await createTestRedis();
}, 180_000);
afterAll(async () => {
  await db?.destroy();
  await replicaDb?.destroy();
  await redis?.destroy();
  await replica?.destroy();
  await primary?.destroy();
});

describe('the API on a lagging read replica', () => {
  it('shows a finished run at once (from the primary), and reads the replica once it has caught up', async () => {
    const env = { DATABASE_URL: primary.urlFor('app'), REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, TRENDS_PROVIDER: 'synthetic' };
    // Replica routing is tested, not load shedding: a busy CI machine must not turn reads into 503s.
    const web = new ServiceProcess('web', {
      ...env,
      DATABASE_READ_URL: replica.urlFor('app'),
      PORT: '0',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    });
    const worker = new ServiceProcess('worker', env);
    const queue = new Queue(QUEUES.research, {
      connection: createRedis(redis.url, 'worker'),
      prefix: redis.keys.queuePrefix(QUEUES.research),
    });
    try {
      const base = (await web.ready).url!;
      await worker.ready;
      const { key } = await createApiKey(db, 'replica test', 'pro');
      const list = async () => {
        const res = await fetch(`${base}/api/insights?limit=100`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
        return { from: res.headers.get('x-read-from'), ids: ((await res.json()) as { data: Array<{ id: string }> }).data.map((i) => i.id) };
      };
      // No write announced yet: no version says how far a replica must be, so the primary answers.
      expect((await list()).from).toBe('primary');

      const run = await startRun(db, new StepQueue(queue), {
        idea: 'Replica lag test idea for bakers',
        hints: [],
        provider: 'synthetic',
        source: 'synthetic',
      });
      const done = await until(
        () => db.selectFrom('research_runs').select(['status', 'insight_id']).where('id', '=', run.id).executeTakeFirstOrThrow(),
        (r) => r.status === 'succeeded',
        120_000,
        'the run',
      );
      const onReplica = async () =>
        (await replicaDb.selectFrom('insights').select('id').where('id', '=', done.insight_id!).executeTakeFirst()) !== undefined;
      const atOnce = await list();
      expect(await onReplica()).toBe(false); // the replica really lags behind the run's writes
      expect(atOnce.ids).toContain(done.insight_id); // yet the API shows the insight: it read the primary
      expect(atOnce.from).toBe('primary');

      await until(onReplica, (there) => there, 60_000, 'the replica to replay the run');
      const later = await until(list, (l) => l.from === 'replica', 30_000, 'reads to go back to the replica');
      expect(later.ids).toContain(done.insight_id);
    } finally {
      await queue.close();
      await Promise.all([web.kill('SIGTERM'), worker.kill('SIGTERM')]);
    }
  }, 300_000);
});

describe('a research run just submitted, on a lagging replica', () => {
  it('is found at its Location at once: runs are read from the primary, which the read-model version does not vouch for', async () => {
    const env = { DATABASE_URL: primary.urlFor('app'), REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, TRENDS_PROVIDER: 'synthetic' };
    const web = new ServiceProcess('web', {
      ...env,
      DATABASE_READ_URL: replica.urlFor('app'),
      PORT: '0',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    });
    try {
      const base = (await web.ready).url!;
      const { key } = await createApiKey(db, 'replica runs', 'pro', null, ['insights:read', 'research:write']);
      const get = async (path: string) => {
        const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        return { status: res.status, from: res.headers.get('x-read-from') };
      };
      // A version the replica has replayed: reads of the read model go to the replica (3 s behind the primary).
      await bumpReadModelVersion(redis.redis, redis.keys, db);
      await until(
        () => get('/api/insights?limit=1'),
        (r) => r.from === 'replica',
        60_000,
        'reads to go to the replica',
      );

      const submitted = await fetch(`${base}/api/research-runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ idea: 'Replica read-your-writes idea for florists' }),
      });
      expect(submitted.status).toBe(202);
      const location = submitted.headers.get('location')!;
      const runId = location.split('/').pop()!;
      // The replica has not replayed the submission yet (it holds replay back 3 s), and the read model still says it may answer.
      expect(await replicaDb.selectFrom('research_runs').select('id').where('id', '=', runId).executeTakeFirst()).toBeUndefined();
      expect((await get('/api/insights?limit=1')).from).toBe('replica');
      expect(await get(location)).toEqual({ status: 200, from: 'primary' });
    } finally {
      await web.kill('SIGTERM');
    }
  }, 180_000);
});

describe('insights doctor', () => {
  it('shows how far the replica is behind the primary, and says so when it cannot reach it', async () => {
    // A write the replica holds back for 3 s, measured at once: the replica is behind by the write's WAL.
    await sql`create table if not exists doctor_probe (n int)`.execute(db);
    let behind = 0;
    for (let i = 0; i < 10 && behind === 0; i += 1) {
      await sql`insert into doctor_probe values (${i})`.execute(db);
      behind = (await measureReplicaLag(db, replicaDb)).bytesBehind;
    }
    expect(behind).toBeGreaterThan(0);

    const env = {
      DATABASE_URL: primary.urlFor('app'),
      DATABASE_READ_URL: replica.urlFor('app'),
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
    };
    const json = await runCli(['doctor', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const shown = JSON.parse(json.stdout) as {
      replica: { reachable: boolean; bytesBehind: number; replayedLsn: string; primaryLsn: string };
    };
    expect(shown.replica).toMatchObject({
      reachable: true,
      replayedLsn: expect.stringMatching(/^[0-9A-F]+\/[0-9A-F]+$/),
      primaryLsn: expect.stringMatching(/^[0-9A-F]+\/[0-9A-F]+$/),
    });
    expect(shown.replica.bytesBehind).toBeGreaterThanOrEqual(0);
    const text = await runCli(['doctor'], env);
    expect(text.stdout).toMatch(/Replica: +\d+ bytes of WAL behind the primary/);

    const away = await runCli(['doctor', '--json'], { ...env, DATABASE_READ_URL: 'postgres://postgres@127.0.0.1:1/app' });
    expect(away.code, away.stderr).toBe(0);
    expect((JSON.parse(away.stdout) as { replica: unknown }).replica).toMatchObject({ reachable: false, error: expect.any(String) });
  }, 120_000);
});
