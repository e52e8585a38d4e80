// Accounts own the keys, the plan and the daily quota (issue 18), through the
// real CLI and two real web processes: one Free account's two keys share 100
// requests; plan changes and suspensions reach both processes within a second;
// keys expire and rotate with an overlap; usage is kept in Postgres by day and
// survives a Redis that restarts with nothing on disk; keys made before accounts
// still work with the day's count kept.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRedis } from '../../scripts/lib/local-redis.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../../src/domain/api-key.js';
import { newId } from '../../src/domain/ids.js';
import { utcDay } from '../../src/domain/utc-day.js';
import { buildTestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

const ADMIN_TOKEN = 'accounts-test-admin-token-0123456789';
let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let env: Record<string, string>;
let webs: ServiceProcess[] = [];
let urls: string[] = [];

beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
  env = stack.env;
  // Overload shedding off (it has its own test, ops.test.ts): on a machine at load 25 (CI, 2026-11-28) the burst
  // below failed its 100 × 200 and 100 × 429; a loop lagging past 500 ms answers 503, the likeliest cause.
  const noShedding = { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' };
  webs = [0, 1].map(() => new ServiceProcess('web', { ...env, ...noShedding, PORT: '0', USAGE_FLUSH_MS: '200', ADMIN_TOKEN }));
  urls = (await Promise.all(webs.map((w) => w.ready))).map((r) => r.url!);
}, 120_000);
afterAll(async () => {
  await Promise.all(webs.map((w) => w.kill('SIGTERM')));
  await stack?.close();
});

const get = (base: string, path: string, key: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) });
// Response bodies are checked field by field below.
const body = (r: Response): Promise<any> => r.json();
const statusOf = (base: string, key: string) => get(base, '/api/sources', key).then((r) => r.status);

async function cli<T = unknown>(args: string[]): Promise<T> {
  const out = await runCli(args, env);
  expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
  return (args.includes('--json') ? JSON.parse(out.stdout) : out.stdout) as T;
}
const newAccount = (plan: string, name = `account ${plan}`) =>
  cli<{ id: string; plan: string; status: string }>(['accounts', 'create', '--name', name, '--plan', plan, '--json']);
const newKey = (accountId: string, name: string, extra: string[] = []) =>
  cli<{ id: string; key: string; account_id: string; expires_at: string | null }>([
    'keys',
    'create',
    '--account',
    accountId,
    '--name',
    name,
    '--json',
    ...extra,
  ]);

/** Resolves when every web process answers `status` for the key; returns how long that took after `since`. */
async function everyProcessAnswers(key: string, status: number, since: number): Promise<number> {
  await Promise.all(
    urls.map((base) =>
      until(
        () => statusOf(base, key),
        (s) => s === status,
        10_000,
        `${status} from ${base}`,
      ),
    ),
  );
  return Date.now() - since;
}

describe('accounts own the quota', () => {
  it('grants 200 requests over two keys of one Free account, on two web processes, exactly 100 × 200 and 100 × 429', async () => {
    const account = await newAccount('free', 'two keys');
    const keys = [await newKey(account.id, 'staging'), await newKey(account.id, 'production')];
    // One request with each key first, so each is sure to have a share: in a concurrent burst alone,
    // one key's lookup can finish first and its requests take the whole day (a loaded machine did).
    const first = [await get(urls[0]!, '/api/sources', keys[0]!.key), await get(urls[1]!, '/api/sources', keys[1]!.key)];
    const burst = await Promise.all(
      Array.from({ length: 198 }, (_, i) => get(urls[i % 2]!, '/api/sources', keys[Math.floor(i / 2) % 2]!.key)),
    );
    const responses = [...first, ...burst];
    const statuses = responses.map((r) => r.status);
    expect(first.map((r) => r.status)).toEqual([200, 200]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100);
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.headers.get('ratelimit-policy')).toBe('"free";q=100;w=86400');
    expect(refused.headers.get('ratelimit')).toMatch(/^"free";r=0;t=\d+$/);
    expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await body(refused)).detail).toContain(`account ${account.id}`);

    // Each key's share of the account's day, as operators see it.
    const shown = await cli<{ today: { used: number; limit: number; by_key: Record<string, number> } }>([
      'accounts',
      'show',
      account.id,
      '--json',
    ]);
    expect(shown.today.used).toBe(100);
    expect(shown.today.limit).toBe(100);
    expect(Object.values(shown.today.by_key).reduce((a, b) => a + b, 0)).toBe(100);
    expect(Object.keys(shown.today.by_key).sort()).toEqual(keys.map((k) => k.id).sort());
    for (const used of Object.values(shown.today.by_key)) expect(used).toBeGreaterThanOrEqual(1);
  });

  it('applies a plan change on every process within a second: an upgrade lets the 101st through, a downgrade refuses the next', async () => {
    const account = await newAccount('free', 'upgrader');
    const { key } = await newKey(account.id, 'main');
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => statusOf(urls[i % 2]!, key)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    for (const base of urls) expect(await statusOf(base, key)).toBe(429);

    const upgraded = await cli<{ plan: string; previous_plan: string }>(['accounts', 'set-plan', account.id, 'pro', '--json']);
    expect(upgraded).toMatchObject({ plan: 'pro', previous_plan: 'free' });
    expect(await everyProcessAnswers(key, 200, Date.now())).toBeLessThan(1_000);
    const usage = await get(urls[0]!, '/api/usage', key);
    expect(usage.headers.get('ratelimit-policy')).toBe('"pro";q=10000;w=86400');
    expect((await body(usage)).data).toMatchObject({ account_id: account.id, plan: 'pro', limit: 10_000 });

    await cli(['accounts', 'set-plan', account.id, 'free']);
    expect(await everyProcessAnswers(key, 429, Date.now())).toBeLessThan(1_000);
  });

  it('answers a suspended account 403 problem+json on every process within a second, and 200 again after resume', async () => {
    const account = await newAccount('starter', 'suspendable');
    const { key } = await newKey(account.id, 'main');
    for (const base of urls) expect(await statusOf(base, key)).toBe(200); // cached in both
    await cli(['accounts', 'suspend', account.id]);
    expect(await everyProcessAnswers(key, 403, Date.now())).toBeLessThan(1_000);
    const res = await get(urls[1]!, '/api/insights', key);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(await body(res)).toMatchObject({ type: '/problems/account-suspended', status: 403 });
    expect((await cli<{ status: string }>(['accounts', 'show', account.id, '--json'])).status).toBe('suspended');

    const resumed = await cli<{ status: string; previous_status: string; released_deliveries: number }>([
      'accounts',
      'resume',
      account.id,
      '--json',
    ]);
    expect(resumed).toEqual(expect.objectContaining({ status: 'active', previous_status: 'suspended', released_deliveries: 0 }));
    expect(await everyProcessAnswers(key, 200, Date.now())).toBeLessThan(1_000);
  });
});

describe('key lifecycle', () => {
  it('an expired key gets 401 saying it expired, not that it is unknown', async () => {
    const account = await newAccount('starter', 'expiring');
    const created = await newKey(account.id, 'short-lived', ['--expires-in', '2s']);
    expect(Date.parse(created.expires_at!)).toBeGreaterThan(Date.now() - 5_000);
    // Seen alive first (unless the machine is slow enough for it to have expired already).
    const first = await statusOf(urls[0]!, created.key);
    expect([200, 401]).toContain(first);
    const res = await until(
      () => get(urls[0]!, '/api/sources', created.key),
      (r) => r.status === 401,
      10_000,
      'the key to expire',
    );
    const problem = await body(res);
    expect(problem.type).toBe('/problems/api-key-expired');
    expect(problem.detail).toMatch(/expired at/);
    expect(problem.detail).not.toMatch(/Unknown/);
    const listed = await runCli(['keys', 'list', '--account', account.id, '--json'], env);
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({ id: created.id, status: 'expired' });
  });

  it('rotates with an overlap: both keys work and count against the account, then the old one stops', async () => {
    const account = await newAccount('starter', 'rotating');
    const old = await newKey(account.id, 'v1');
    expect(await statusOf(urls[0]!, old.key)).toBe(200);
    const rotated = await cli<{ id: string; key: string; replaces: string; old_key_stops_at: string }>([
      'keys',
      'rotate',
      old.id,
      '--overlap',
      '4s',
      '--json',
    ]);
    expect(rotated.replaces).toBe(old.id);
    expect(rotated.key).not.toBe(old.key);
    const stopsAt = Date.parse(rotated.old_key_stops_at);

    const newStatus = await statusOf(urls[1]!, rotated.key);
    const oldStatus = await statusOf(urls[1]!, old.key);
    expect(newStatus).toBe(200);
    if (Date.now() < stopsAt - 500) expect(oldStatus).toBe(200); // within the overlap (a slow machine may be past it)
    const usage = (await body(await get(urls[0]!, '/api/usage', rotated.key))).data;
    expect(usage.account_id).toBe(account.id);
    expect(usage.used).toBe(oldStatus === 200 ? 4 : 3); // both keys count against the one account

    const expired = await until(
      () => get(urls[0]!, '/api/sources', old.key),
      (r) => r.status === 401,
      15_000,
      'the overlap to end',
    );
    expect((await body(expired)).detail).toMatch(/expired/);
    expect(Date.now()).toBeGreaterThanOrEqual(stopsAt);
    expect(await statusOf(urls[0]!, rotated.key)).toBe(200);

    const keys = (await runCli(['keys', 'list', '--account', account.id, '--json'], env)).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(keys.find((k) => k.id === old.id)).toMatchObject({ status: 'expired', replaced_by: rotated.id });
    expect(keys.find((k) => k.id === rotated.id)).toMatchObject({ status: 'active' });
  });

  it('keeps last_used_at without a write per request, and never lists the key itself', async () => {
    const account = await newAccount('pro', 'last used');
    const created = await newKey(account.id, 'main');
    const before = Date.now();
    expect(await statusOf(urls[0]!, created.key)).toBe(200);
    // The web processes write in batches (USAGE_FLUSH_MS=200 here; 30 s by default).
    const row = await until(
      () => database.db.selectFrom('api_keys').select('last_used_at').where('id', '=', created.id).executeTakeFirstOrThrow(),
      (r) => r.last_used_at !== null,
      10_000,
      'last_used_at',
    );
    expect(Math.abs(row.last_used_at!.getTime() - before)).toBeLessThan(60_000);
    const list = await runCli(['keys', 'list', '--account', account.id], env);
    expect(list.stdout).toContain(created.id);
    expect(list.stdout).toContain(displayPrefix(created.key));
    expect(list.stdout).not.toContain(created.key);
    for (const column of ['last_used', 'expires', 'status', 'created']) expect(list.stdout).toContain(column);
  });
});

describe('usage is kept by day', () => {
  it("GET /api/usage?days=3 gives the account by day with each key's share; days outside 1–90 is a 400 naming the range", async () => {
    const account = await newAccount('starter', 'historian');
    const a = await newKey(account.id, 'alpha');
    const b = await newKey(account.id, 'beta');
    const yesterday = utcDay(new Date(Date.now() - 86_400_000));
    await database.db
      .insertInto('usage_daily')
      .values([
        { account_id: account.id, day: yesterday, api_key_id: a.id, requests: 30 },
        { account_id: account.id, day: yesterday, api_key_id: b.id, requests: 12 },
      ])
      .execute();
    expect(await statusOf(urls[0]!, a.key)).toBe(200);
    const res = await get(urls[1]!, '/api/usage?days=3', b.key);
    expect(res.status).toBe(200);
    const data = (await body(res)).data;
    expect(data).toMatchObject({ account_id: account.id, account_name: 'historian', plan: 'starter', limit: 1000, used: 2 });
    expect(data.days[0]).toMatchObject({ day: utcDay(new Date()), requests: 2 });
    expect(data.days[0].keys.map((k: { name: string }) => k.name).sort()).toEqual(['alpha', 'beta']);
    expect(data.days[1]).toEqual({
      day: yesterday,
      requests: 42,
      keys: [
        { key_id: a.id, name: 'alpha', requests: 30 },
        { key_id: b.id, name: 'beta', requests: 12 },
      ],
    });

    for (const days of ['0', '91', 'x']) {
      const bad = await get(urls[0]!, `/api/usage?days=${days}`, a.key);
      expect(bad.status, days).toBe(400);
      expect(bad.headers.get('content-type')).toMatch(/problem\+json/);
      expect((await body(bad)).detail).toMatch(/1.*90/);
    }

    const lines = (await runCli(['accounts', 'usage', account.id, '--days', '3', '--json'], env)).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.day)).toEqual([utcDay(new Date()), yesterday]);
    expect(lines[1].requests).toBe(42);
  });

  it('counts requests per plan in /metrics', async () => {
    const counts = async () => {
      const res = await fetch(`${urls[0]}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(200);
      const text = await res.text();
      const of = (plan: string) => Number(new RegExp(`^api_requests_total\\{plan="${plan}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
      return { free: of('free'), starter: of('starter') };
    };
    const before = await counts();
    const free = await newKey((await newAccount('free', 'metered free')).id, 'm');
    const starter = await newKey((await newAccount('starter', 'metered starter')).id, 'm');
    for (const key of [free.key, free.key, starter.key]) expect(await statusOf(urls[0]!, key)).toBe(200);
    const after = await counts();
    expect(after.free - before.free).toBe(2);
    expect(after.starter - before.starter).toBe(1);
  });
});

describe('bad input changes nothing', () => {
  it.each([
    [['keys', 'create', '--account', 'acc_doesnotexist', '--name', 'x'], /No account has the id .*insights accounts list/],
    [['accounts', 'show', 'nope'], /insights accounts list/],
    [['accounts', 'set-plan', 'acc_doesnotexist', 'pro'], /insights accounts list/],
    [['accounts', 'create', '--name', 'x', '--plan', 'gold'], /--plan must be one of free, starter, pro, enterprise/],
    [['keys', 'create', '--plan', 'free', '--name', 'x', '--expires-in', '90 days'], /--expires-in must be .*90d.*24h/],
    [['keys', 'create', '--plan', 'free', '--name', 'x', '--expires-in', '0s'], /--expires-in must be longer than 0/],
    [['accounts', 'usage', 'acc_doesnotexist', '--days', '91'], /--days must be a whole number from 1 to 90/],
  ])('rejects %j with exit 2 and a message', async (args, message) => {
    const before = await database.db
      .selectFrom('accounts')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    const out = await runCli(args, env);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
    const after = await database.db
      .selectFrom('accounts')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('refuses a bad plan for set-plan and leaves the plan alone', async () => {
    const account = await newAccount('starter', 'stays starter');
    const out = await runCli(['accounts', 'set-plan', account.id, 'platinum'], env);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/free, starter, pro, enterprise/);
    expect((await cli<{ plan: string }>(['accounts', 'show', account.id, '--json'])).plan).toBe('starter');
  });

  it('refuses to rotate a revoked key, and a malformed overlap', async () => {
    const account = await newAccount('free', 'revoker');
    const created = await newKey(account.id, 'gone');
    const badOverlap = await runCli(['keys', 'rotate', created.id, '--overlap', 'soon'], env);
    expect(badOverlap.code).toBe(2);
    expect(badOverlap.stderr).toMatch(/--overlap must be .*24h/);
    await cli(['keys', 'revoke', created.id]);
    const out = await runCli(['keys', 'rotate', created.id], env);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/revoked.*cannot be rotated/);
    const keys = await database.db.selectFrom('api_keys').select('id').where('account_id', '=', account.id).execute();
    expect(keys).toHaveLength(1);
  });
});

describe('a Redis that restarts with nothing on disk', () => {
  it('resumes counting from the stored figure: 60 spent, then at most 40 more', async () => {
    const bare = await LocalRedis.create({ appendOnly: false });
    const web = new ServiceProcess('web', {
      ...database.env,
      REDIS_URL: bare.url,
      REDIS_PREFIX: 'restart',
      PORT: '0',
      USAGE_FLUSH_MS: '200',
    });
    try {
      const { url } = await web.ready;
      const account = await newAccount('free', 'restart survivor');
      const { key } = await newKey(account.id, 'main');
      const spent = await Promise.all(Array.from({ length: 60 }, () => statusOf(url!, key)));
      expect(spent.every((s) => s === 200)).toBe(true);
      const stored = () =>
        database.db
          .selectFrom('usage_daily')
          .select(sql<number>`coalesce(sum(requests), 0)::int`.as('n'))
          .where('account_id', '=', account.id)
          .executeTakeFirstOrThrow();
      await until(stored, (r) => r.n === 60, 10_000, 'the 60 requests to be stored');

      await bare.restart('SIGKILL'); // no AOF, no RDB: every counter is gone
      await until(
        () => fetch(`${url}/readyz`).then((r) => r.status),
        (s) => s === 200,
        30_000,
        'the web process to reconnect',
      );
      const after = await Promise.all(Array.from({ length: 100 }, () => statusOf(url!, key)));
      expect(after.filter((s) => s === 200)).toHaveLength(40);
      expect(after.filter((s) => s === 429)).toHaveLength(60);
    } finally {
      await web.kill('SIGTERM');
      await bare.destroy();
    }
  }, 120_000);
});

describe('the upgrade from keys with their own plans', () => {
  it("puts each existing key in an account of its own: it still answers 200, with the day's count kept", async () => {
    // Only a database, taken back to an older migration: no Redis, so not a stack.
    const old = await createTestDatabase();
    const app = { close: async () => {} };
    try {
      // The schema of the version before accounts, holding a key it made and a count it kept.
      await migrateTo(old.db, '2026-11-23T0008-research-served');
      const key = generateApiKey();
      const id = newId('apiKey');
      await old.db
        .insertInto('api_keys' as never)
        .values({ id, name: 'made before accounts', plan: 'free', display_prefix: displayPrefix(key), key_hash: hashApiKey(key) } as never)
        .execute();
      const day = utcDay(new Date());
      await redis.redis.set(redis.keys.quota(id, day), '7', 'EX', 172_800); // the per-key counter it kept

      await migrateToLatest(old.db);
      const account = await old.db.selectFrom('accounts').selectAll().executeTakeFirstOrThrow();
      expect(account).toMatchObject({ id: `acc_${id.slice(4)}`, name: 'made before accounts', plan: 'free', status: 'active' });

      const served = await buildTestApp({ database: old, redis }, { overloadMaxEventLoopDelayMs: 0 });
      app.close = () => served.close();
      const res = await served.inject({ url: '/api/usage', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ account_id: account.id, plan: 'free', limit: 100, used: 8, remaining: 92 });
    } finally {
      await app.close();
      await old.destroy();
    }
  });
});
