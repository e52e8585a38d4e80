// The failed-authentication limit bounds what junk keys cost (Postgres lookups),
// never who may use a valid key. Before, a valid key sharing an address with a
// junk-key flood (behind a load balancer every client shares one) got 429 once
// its 60 s cache entry expired, and the limit was checked before the lookup but
// counted after it, so 50 concurrent junk keys all reached Postgres.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { generateApiKey } from '../../src/domain/api-key.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';

const VALID_KEY_CACHE_MS = 60_000;

describe('a valid key beside a junk-key flood from the same address', () => {
  let t: TestApp;
  let clock = Date.now();
  beforeAll(async () => {
    // The key cache runs on this clock, so a test can let its entries expire without waiting.
    t = await createTestApp({ now: () => clock });
  });
  afterAll(() => t.close());

  it('gets 200 throughout, its cache entry expiring again and again, while the junk gets 401 then 429', async () => {
    const address = '203.0.113.50';
    const key = await t.key('enterprise');
    const valid: number[] = [];
    const junk: number[] = [];
    for (let round = 0; round < 20; round += 1) {
      for (let i = 0; i < 10; i += 1) {
        junk.push((await t.app.inject({ url: '/api/sources', headers: bearer(generateApiKey()), remoteAddress: address })).statusCode);
      }
      clock += VALID_KEY_CACHE_MS + 1_000; // the valid key's cache entry has expired: it needs a lookup again
      valid.push((await t.app.inject({ url: '/api/sources', headers: bearer(key), remoteAddress: address })).statusCode);
    }
    expect(valid).toEqual(Array(20).fill(200));
    expect(junk.filter((s) => s === 429).length).toBeGreaterThan(150);
    expect(new Set(junk)).toEqual(new Set([401, 429]));
  });

  it('a key never used before, created before or after the flood began, gets 200 at its first request from the throttled address', async () => {
    const address = '203.0.113.51';
    const before = await t.key('free');
    for (let i = 0; i < 40; i += 1) await t.app.inject({ url: '/api/sources', headers: bearer(generateApiKey()), remoteAddress: address });
    expect((await t.app.inject({ url: '/api/sources', headers: bearer(generateApiKey()), remoteAddress: address })).statusCode).toBe(429);
    expect((await t.app.inject({ url: '/api/sources', headers: bearer(before), remoteAddress: address })).statusCode).toBe(200);
    const after = await t.key('free');
    clock += 1_000; // the keys made since the last read are read at most once a second
    expect((await t.app.inject({ url: '/api/sources', headers: bearer(after), remoteAddress: address })).statusCode).toBe(200);
  });

  it('a revoked key is no longer let past the limit', async () => {
    const address = '203.0.113.52';
    const created = await createApiKey(t.database.db, 'to revoke', 'free');
    expect((await t.app.inject({ url: '/api/sources', headers: bearer(created.key), remoteAddress: address })).statusCode).toBe(200);
    await t.database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', created.id).execute();
    t.apiKeys.forget(created.id); // what the revocation's announcement does in every web process
    for (let i = 0; i < 40; i += 1) await t.app.inject({ url: '/api/sources', headers: bearer(generateApiKey()), remoteAddress: address });
    expect((await t.app.inject({ url: '/api/sources', headers: bearer(created.key), remoteAddress: address })).statusCode).toBe(429);
  });

  it('50 concurrent junk keys from one address cost at most the burst of lookups, not 50', async () => {
    const before = t.apiKeys.stats.lookups;
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.app.inject({ url: '/api/sources', headers: bearer(generateApiKey()), remoteAddress: '198.51.100.77' }).then((r) => r.statusCode),
      ),
    );
    const lookups = t.apiKeys.stats.lookups - before;
    expect(lookups).toBeLessThanOrEqual(20);
    expect(statuses.filter((s) => s === 401)).toHaveLength(lookups);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50 - lookups);
  });

  it('a burst of 100 concurrent requests with one new valid key is one lookup, not 100 tries', async () => {
    // Made after the last read of the known keys (the clock stands still): it is not known yet.
    const key = await t.key('enterprise');
    const before = t.apiKeys.stats.lookups;
    const statuses = await Promise.all(
      Array.from({ length: 100 }, () =>
        t.app.inject({ url: '/api/sources', headers: bearer(key), remoteAddress: '198.51.100.78' }).then((r) => r.statusCode),
      ),
    );
    expect(statuses).toEqual(Array(100).fill(200));
    expect(t.apiKeys.stats.lookups - before).toBe(1);
  });

  it('IPv6 clients are counted by their /64, so rotating addresses within it gains nothing', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      const res = await t.app.inject({
        url: '/api/sources',
        headers: bearer(generateApiKey()),
        remoteAddress: `2001:db8:1:2::${(i + 1).toString(16)}`,
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(19);
  });
});

describe('TRUST_PROXY, behind a reverse proxy on loopback', () => {
  let t: TestApp;
  let untrusted: TestApp;
  let proxyPort: number;
  const opened: http.Server[] = [];

  /** A reverse proxy as nginx is usually set up: it appends the address that connected to X-Forwarded-For. */
  async function startProxy(targetPort: number): Promise<number> {
    const server = http.createServer((req, res) => {
      const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
      const upstream = http.request(
        {
          host: '127.0.0.1',
          port: targetPort,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, 'x-forwarded-for': forwarded },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    opened.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  /** A GET from a given loopback address (Linux answers on all of 127.0.0.0/8). */
  function get(port: number, from: string, key: string, headers: Record<string, string> = {}): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/api/sources', localAddress: from, agent: false, headers: { ...bearer(key), ...headers } },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.once('error', reject);
      req.end();
    });
  }

  beforeAll(async () => {
    t = await createTestApp({ trustProxy: ['127.0.0.1/32'] });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    proxyPort = await startProxy((t.app.server.address() as AddressInfo).port);
    untrusted = await createTestApp();
    await untrusted.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    for (const server of opened) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    await t.close();
    await untrusted.close();
  });

  it('the limit counts each client behind the proxy, not the proxy, and a client cannot choose its address', async () => {
    // 127.0.0.2 floods junk through the proxy, writing a new X-Forwarded-For each time to pass for someone else.
    const attacker: number[] = [];
    for (let i = 0; i < 30; i += 1)
      attacker.push(await get(proxyPort, '127.0.0.2', generateApiKey(), { 'x-forwarded-for': `192.0.2.${i}` }));
    expect(attacker.slice(-5)).toEqual(Array(5).fill(429));
    // 127.0.0.3, through the same proxy, is another client: a wrong key is a 401, not a 429.
    expect(await get(proxyPort, '127.0.0.3', generateApiKey())).toBe(401);
    // A client that connects directly is not a proxy: its X-Forwarded-For is not believed.
    const direct = (t.app.server.address() as AddressInfo).port;
    const spoofed: number[] = [];
    for (let i = 0; i < 30; i += 1)
      spoofed.push(await get(direct, '127.0.0.4', generateApiKey(), { 'x-forwarded-for': `192.0.2.${100 + i}` }));
    expect(spoofed.slice(-5)).toEqual(Array(5).fill(429));
  });

  it('without TRUST_PROXY, every client behind the proxy is the proxy; a valid key still gets through', async () => {
    const port = await startProxy((untrusted.app.server.address() as AddressInfo).port);
    const key = await untrusted.key('free');
    for (let i = 0; i < 30; i += 1) await get(port, '127.0.0.5', generateApiKey());
    expect(await get(port, '127.0.0.6', generateApiKey())).toBe(429);
    expect(await get(port, '127.0.0.6', key)).toBe(200);
  });
});
