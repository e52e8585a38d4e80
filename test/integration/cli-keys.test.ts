import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, isWellFormedApiKey } from '../../src/domain/api-key.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';

let t: TestApp;
let env: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp({ cacheTtlSeconds: 0 });
  env = { ...t.database.env, REDIS_URL: t.redis.url, REDIS_PREFIX: t.redis.prefix };
});
afterAll(() => t.close());

describe('insights keys', () => {
  it('creates a key shown once, stored only as a hash, that the API accepts', async () => {
    const result = await runCli(['keys', 'create', '--name', 'ci', '--plan', 'starter', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(Object.keys(created).sort()).toEqual(['account_id', 'expires_at', 'id', 'key', 'plan', 'scopes']);
    expect(created.scopes).toEqual(['insights:read']);
    expect(created.account_id).toMatch(/^acc_/);
    expect(created.expires_at).toBeNull();
    expect(created.plan).toBe('starter');
    expect(isWellFormedApiKey(created.key)).toBe(true);

    const row = await t.database.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);

    const res = await t.app.inject({ url: '/api/usage', headers: bearer(created.key) });
    expect(res.json().data).toMatchObject({ plan: 'starter', limit: 1000 });

    const list = await runCli(['keys', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(created.id);
    expect(list.stdout).not.toContain(created.key);

    const revoke = await runCli(['keys', 'revoke', created.id], env);
    expect(revoke.code, revoke.stderr).toBe(0);
    const after = await t.app.inject({ url: '/api/usage', headers: bearer(created.key) });
    expect(after.statusCode).toBe(401);
  });

  it('creates a key with the scopes asked (--scope, repeatable), and rotation keeps them', async () => {
    const result = await runCli(
      ['keys', 'create', '--name', 'hooks', '--plan', 'pro', '--scope', 'insights:read', '--scope', 'webhooks:write', '--json'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created.scopes).toEqual(['insights:read', 'webhooks:write']);
    const listed = await t.app.inject({ url: '/api/webhooks', headers: bearer(created.key) });
    expect(listed.statusCode, listed.body).toBe(200);

    const rotated = await runCli(['keys', 'rotate', created.id, '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const next = JSON.parse(rotated.stdout);
    expect(next.scopes).toEqual(['insights:read', 'webhooks:write']);
    expect((await t.app.inject({ url: '/api/webhooks', headers: bearer(next.key) })).statusCode).toBe(200);

    // A read-only key (the default) may not manage webhooks: 403 naming the scope it lacks.
    const readOnly = JSON.parse((await runCli(['keys', 'create', '--name', 'reader', '--plan', 'pro', '--json'], env)).stdout);
    const refused = await t.app.inject({ url: '/api/webhooks', headers: bearer(readOnly.key) });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ type: '/problems/missing-scope' });
    expect(refused.json().detail).toContain('webhooks:write');
    const list = await runCli(['keys', 'list'], env);
    expect(list.stdout).toContain('insights:read,webhooks:write');
  });

  it('prints a readable key without --json', async () => {
    const result = await runCli(['keys', 'create', '--name', 'human', '--plan', 'free'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Key: sik_/);
    expect(result.stdout).toMatch(/shown only once/);
  });

  it.each([
    [['keys', 'create', '--name', 'x', '--plan', 'platinum'], /--plan must be one of free, starter, pro, enterprise/],
    [
      ['keys', 'create', '--name', 'x', '--plan', 'free', '--scope', 'webhooks:admin'],
      /--scope must be one of insights:read, webhooks:write/,
    ],
    [['keys', 'create', '--plan', 'free'], /--name/],
    [['keys', 'revoke', 'key_doesnotexist'], /No API key has the id/],
    [['seed'], /--demo/],
    [['nonsense'], /unknown command/],
  ])('rejects %j with a message and exit code 2', async (args, message) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('explains a bad configuration and exits 2', async () => {
    const result = await runCli(['keys', 'list'], { ...env, PORT: 'x', DATABASE_URL: 'mysql://nope' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/PORT/);
    expect(result.stderr).toMatch(/DATABASE_URL/);
  });

  it('says how to fix an unreachable database, exit 1', async () => {
    const result = await runCli(['keys', 'list'], { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Postgres is not reachable.*DATABASE_URL/);
  });

  it('seeds demo data and refuses a folder without it', async () => {
    const bad = await runCli(['seed', '--demo', '--from', '/nonexistent'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/No demo data at/);
    const good = await runCli(['seed', '--demo', '--count', '31'], env);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/Loaded 31 recorded series/);
  });
});
