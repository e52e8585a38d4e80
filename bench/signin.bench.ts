// npm run bench:signin — a known person's sign-in while 360 wrong sign-ins for random addresses arrive
// at once from 30 clients (issue 48's review: a right sign-in went from 0.14 s to 1.7–5.2 s, every
// scrypt queued on libuv's shared thread pool). Two apps on loopback ports in this one process, the same
// code but for one setting: today's bounded hashing (SIGN_IN_HASH_CONCURRENCY etc., defaults) and the
// unbounded baseline (SIGN_IN_HASH_CONCURRENCY=0, as before). Each runs ROUNDS floods; during each, the
// known person (a browser that signed in before: its device cookie) signs in KNOWN_PER_ROUND times, one
// after another, each timed from the sign-in page's GET to the POST's 303. The flood's clients are the
// benchmarking range 198.18.0.0/15 as X-Forwarded-For from 127.0.0.1 (a trusted proxy): loopback only.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApiKey } from '../src/api-keys/api-key.repository.js';
import { createInvitation } from '../src/members/invitations.js';
import { loadConfig, PAGES_DEFAULTS, type PagesLimits } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { createRedis } from '../src/redis/connection.js';
import { redisKeys } from '../src/redis/keys.js';
import type { Resources } from '../src/runtime/resources.js';
import { buildServices } from '../src/runtime/services.js';
import { createBenchDatabase } from './lib/database.js';
import { removePrefixKeys } from './lib/redis-cleanup.js';
import { median, printJsonLine, printTable, round } from './lib/report.js';

const FLOOD = Number(process.env.BENCH_SIGNIN_FLOOD ?? 360);
const CLIENTS = Number(process.env.BENCH_SIGNIN_CLIENTS ?? 30);
const ROUNDS = Number(process.env.BENCH_SIGNIN_ROUNDS ?? 2);
const KNOWN_PER_ROUND = Number(process.env.BENCH_SIGNIN_KNOWN ?? 5);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

const database = await createBenchDatabase('signin', 10);
const redis = createRedis(REDIS_URL);
const prefix = `bench-signin-${process.pid}`;
const keys = redisKeys(prefix);

/** A browser: its cookies, the client address it claims through the proxy, and the form token of its last page. */
class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(
    private readonly base: string,
    private readonly client: string,
  ) {}
  private store(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      if (/Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(at + 1));
    }
  }
  private headers(): Record<string, string> {
    return { cookie: [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; '), 'x-forwarded-for': this.client, origin: this.base };
  }
  async get(path: string): Promise<string> {
    const res = await fetch(this.base + path, { headers: this.headers(), redirect: 'manual' });
    this.store(res);
    return res.text();
  }
  async post(path: string, form: Record<string, string>): Promise<number> {
    const res = await fetch(this.base + path, {
      method: 'POST',
      headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    this.store(res);
    await res.arrayBuffer();
    return res.status;
  }
  static csrf(html: string): string {
    return /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  }
  async signIn(email: string, password: string): Promise<number> {
    const csrf = Browser.csrf(await this.get('/account/sign-in'));
    return this.post('/account/sign-in', { csrf, email, password });
  }
}

interface ModeResult {
  mode: string;
  idleMs: number;
  knownMs: number[];
  /** Known sign-ins that got no 303 (no answer before the socket's idle timeout). */
  knownFailed: number;
  flood: Record<string, number>;
  floodSeconds: number[];
}

/** Both apps are built before any flood: a plugin that cannot start under the flood's load would fail the run. */
async function start(limits: PagesLimits) {
  // The services from the composition root, over the bench's database and prefix; closed with the app.
  const resources: Resources = {
    db: database.db,
    databaseUrl: database.url,
    embeddedPostgres: false,
    redis,
    redisTarget: { url: REDIS_URL },
    redisKeys: keys,
    connectRedis: (role) => createRedis(REDIS_URL, role),
    close: async () => {},
  };
  const config = loadConfig({
    DATABASE_URL: database.url,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  const services = buildServices(resources, config, pino({ level: 'silent' }), { pagesLimits: limits });
  const app = await buildApp({
    services,
    cacheTtlSeconds: 0,
    overloadMaxEventLoopDelayMs: 0,
    trustProxy: ['127.0.0.1/32'],
  });
  app.addHook('onClose', async () => services.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function measure(mode: string, { app, base }: Awaited<ReturnType<typeof start>>): Promise<ModeResult> {
  try {
    const account = await createApiKey(database.db, `bench signin ${mode}`, 'pro');
    const person = { email: `known-${mode}@example.com`, password: 'the known person password' };
    const invited = await createInvitation(
      database.db,
      { accountId: account.accountId, accountName: 'bench', email: person.email, role: 'owner', invitedBy: null },
      base,
      { printTo: 'operator' },
    );
    if (invited.kind !== 'printed') throw new Error(`no invitation: ${invited.kind}`);
    const known = new Browser(base, '192.0.2.10');
    const path = new URL(invited.link).pathname;
    // Setting up is not measured: a request the loaded machine drops is asked again, as a browser would.
    const setUp = async <T>(step: () => Promise<T>): Promise<T> => step().catch(step);
    const csrf = Browser.csrf(await setUp(() => known.get(path)));
    await setUp(() => known.post(path, { csrf, password: person.password, confirm: person.password }));
    // The first sign-in makes the browser known (its device cookie); the second is the idle reference.
    if ((await setUp(() => known.signIn(person.email, person.password))) !== 303) throw new Error('the known person could not sign in');
    let started = performance.now();
    if ((await known.signIn(person.email, person.password)) !== 303) throw new Error('the known person could not sign in');
    const idleMs = performance.now() - started;

    const knownMs: number[] = [];
    let knownFailed = 0;
    const flood: Record<string, number> = {};
    const floodSeconds: number[] = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      // New client addresses each round, so the per-client limit (20 a minute) does not hold the flood back.
      const clients = await Promise.all(
        Array.from({ length: CLIENTS }, async (_, i) => {
          const browser = new Browser(base, `198.18.${(mode === 'bounded' ? 100 : 0) + r}.${i + 1}`);
          return { browser, csrf: Browser.csrf(await setUp(() => browser.get('/account/sign-in'))) };
        }),
      );
      started = performance.now();
      const attempts = Array.from({ length: FLOOD }, (_, i) => {
        const { browser, csrf } = clients[i % CLIENTS]!;
        return browser
          .post('/account/sign-in', { csrf, email: `${randomBytes(8).toString('hex')}@example.com`, password: 'not the password' })
          .catch(() => 0);
      });
      const floodDone = Promise.all(attempts).then((statuses) => {
        floodSeconds.push((performance.now() - started) / 1000);
        for (const s of statuses) flood[String(s)] = (flood[String(s)] ?? 0) + 1;
      });
      for (let k = 0; k < KNOWN_PER_ROUND; k += 1) {
        const at = performance.now();
        // A sign-in that gets no answer (the server closes a socket idle HTTP_REQUEST_TIMEOUT_MS while its
        // hash waits) is counted as failed, with the time it took to fail.
        const status = await known.signIn(person.email, person.password).catch(() => 0);
        knownMs.push(performance.now() - at);
        if (status !== 303) knownFailed += 1;
      }
      await floodDone;
    }
    return { mode, idleMs, knownMs, knownFailed, flood, floodSeconds };
  } finally {
    await app.close();
  }
}

const results: ModeResult[] = [];
try {
  const baselineApp = await start({ ...PAGES_DEFAULTS, hashConcurrent: 0 });
  const boundedApp = await start(PAGES_DEFAULTS);
  results.push(await measure('baseline', baselineApp));
  results.push(await measure('bounded', boundedApp));
} finally {
  await removePrefixKeys(redis, prefix);
  redis.disconnect();
  await database.drop();
}

const summary = results.map((r) => ({
  mode: r.mode,
  idle_ms: round(r.idleMs, 0),
  known_median_ms: round(median(r.knownMs), 0),
  known_p95_ms: round(pct(r.knownMs, 0.95), 0),
  known_max_ms: round(Math.max(...r.knownMs), 0),
  known_failed: r.knownFailed,
  flood_s_median: round(median(r.floodSeconds), 2),
  flood_answers: Object.entries(r.flood)
    .map(([status, n]) => `${n}×${status}`)
    .join(' '),
}));
printTable(
  `Known person's sign-in (${ROUNDS} rounds × ${KNOWN_PER_ROUND}) under ${FLOOD} wrong sign-ins for random addresses from ${CLIENTS} clients, at once`,
  summary,
);
const [baseline, bounded] = summary;
printJsonLine({
  bench: 'signin',
  flood: FLOOD,
  clients: CLIENTS,
  samples: ROUNDS * KNOWN_PER_ROUND,
  hashing: {
    concurrent: PAGES_DEFAULTS.hashConcurrent,
    reserved_for_known: PAGES_DEFAULTS.hashReservedForKnown,
    waiting: PAGES_DEFAULTS.hashWaiting,
  },
  baseline_median_ms: baseline!.known_median_ms,
  baseline_p95_ms: baseline!.known_p95_ms,
  bounded_median_ms: bounded!.known_median_ms,
  bounded_p95_ms: bounded!.known_p95_ms,
  baseline_failed: baseline!.known_failed,
  bounded_failed: bounded!.known_failed,
  bounded_under_1s: bounded!.known_p95_ms < 1000 && bounded!.known_failed === 0,
});
process.exit(0);
