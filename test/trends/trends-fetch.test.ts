// The trends job's handling of each outcome, with the pool and Google stubbed:
// every wait moves the job to `delayed` (no attempt spent, no lock held, the
// worker never rate-limited: a worker rate limit is what left jobs past their
// lock, "Missing lock for job trends-… moveJobFromActiveToWait"), a refusal
// goes to another route, a changed shape fails for good; a block honours
// Google's Retry-After, a token over the embed quota waits on the route's
// embed pages, and a new label from Google is warned of.
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { trendsFetchProcessor } from '../../jobs/trends-fetch.job.js';
import { RouteWaitError, type EgressPool, type Lease } from '../../src/providers/google/egress/egress-pool.js';
import type { GoogleTrendsProvider } from '../../src/providers/google/provider.js';
import { MalformedResponseError, RateLimitedError, RefusedError } from '../../src/providers/contract.js';
import { EmbedOverQuotaError } from '../../src/providers/google/errors.js';

const ROUTE = { name: 'proxy-a:3128' };

function fakeJob(data: Record<string, unknown> = { request: { kind: 'autocomplete', term: 'pizza' }, provider: 'google' }) {
  const calls: string[] = [];
  const job = {
    id: 'trends-1',
    name: 'trends-fetch',
    data,
    opts: {} as { priority?: number; attempts?: number },
    progress: 0 as unknown,
    delayedUntil: 0,
    async moveToDelayed(timestamp: number) {
      calls.push('moveToDelayed');
      job.delayedUntil = timestamp;
    },
    async updateProgress(progress: unknown) {
      job.progress = progress;
    },
    async updateData(next: Record<string, unknown>) {
      job.data = next;
    },
  };
  return { job, calls };
}

function fakePool(
  lease: Lease,
  blocked = { cooldownMs: 600_000, started: true },
  label: { changed: boolean; before: string | null } = { changed: false, before: null },
) {
  const calls: string[] = [];
  const pool = {
    acquire: async (_j: string, _skip: string[], _now: number, embed: boolean) => (embed && calls.push('acquire:embed'), lease),
    pacers: () => ({ pace: async () => {}, paceEmbed: async () => {} }),
    cookies: {},
    answered: async (_r: unknown, _j: string, outcome: string) => void calls.push(`answered:${outcome}`),
    blocked: async (_r: unknown, _j: string, _now: number, block: { kind?: string; retryAfterMs?: number }) => (
      calls.push(`blocked:${block.kind}${block.retryAfterMs ? `:${block.retryAfterMs}` : ''}`),
      blocked
    ),
    answeredBeforeBlock: async (_r: unknown, _j: string, family: string) => void calls.push(`answered_before:${family}`),
    embedOverQuota: async () => (calls.push('over_quota'), 300_000),
    labelled: async (_r: unknown, userType: string) => (calls.push(`label:${userType}`), label),
    refused: async () => void calls.push('refused'),
    release: async (_r: unknown, _j: string, failed: boolean) => void calls.push(`release:${failed}`),
    clearRefusals: async (routes: string[]) => void calls.push(`clear:${routes.join(',')}`),
  };
  return { pool: pool as unknown as EgressPool, calls };
}

const provider = (behaviour: () => Promise<unknown>) => ({ fetch: behaviour }) as unknown as GoogleTrendsProvider;
const run = (pool: EgressPool, p: GoogleTrendsProvider, job: ReturnType<typeof fakeJob>['job']) =>
  trendsFetchProcessor({ pool, provider: p, logger: pino({ level: 'silent' }) })(job as unknown as Job, 'token').then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('the trends job', () => {
  it('waits for a free route as a delayed job, saying until when and why, without spending an attempt', async () => {
    const { job, calls } = fakeJob();
    const { pool } = fakePool({ waitMs: 120_000, reason: 'cooling' });
    const before = Date.now();
    const result = await run(
      pool,
      provider(async () => ({})),
      job,
    );
    expect((result as { error: unknown }).error).toBeInstanceOf(DelayedError);
    expect(calls).toEqual(['moveToDelayed']);
    expect(job.delayedUntil).toBeGreaterThanOrEqual(before + 120_000);
    expect(job.progress).toMatchObject({ until: expect.any(Number), reason: expect.stringMatching(/cooling down after a block/) });
  });

  it('reports a block to the pool and waits out the cooldown it started', async () => {
    const { job, calls } = fakeJob();
    const { pool, calls: poolCalls } = fakePool({ route: ROUTE, probe: true }, { cooldownMs: 900_000, started: true });
    const before = Date.now();
    const result = await run(
      pool,
      provider(async () => Promise.reject(new RateLimitedError('302 to sorry', 'sorry_302', 900_000))),
      job,
    );
    expect((result as { error: unknown }).error).toBeInstanceOf(DelayedError);
    expect(poolCalls).toEqual(['blocked:sorry_302:900000']); // the kind and Google's Retry-After go to the pool
    expect(calls).toEqual(['moveToDelayed']);
    expect(job.delayedUntil).toBeGreaterThanOrEqual(before + 900_000);
    // The reason names the minute of the wait it announces (computed from `before`, it could fall a minute short).
    const announced = job.progress as { until: number; reason: string };
    expect(announced.until).toBeGreaterThanOrEqual(before + 900_000);
    expect(announced.reason).toBe(
      `route ${ROUTE.name} is cooling down after a block until ${new Date(announced.until).toISOString().slice(11, 16)} UTC`,
    );
  });

  it('a block of the family its request begins with sends the job to another route at once; a later family waits the cooldown', async () => {
    // Outside review of issue 51 (2026-11-29): a blocked autocomplete on one route held a run for the whole cooldown
    // while another route was open. The pool routes a job around a route whose first family is cooling.
    const blockOf = (family: 'autocomplete' | 'widgetdata') => {
      const error = new RateLimitedError('429', 'too_many_429');
      error.family = family;
      return error;
    };
    for (const [family, elsewhere] of [
      ['autocomplete', true],
      ['widgetdata', false],
    ] as const) {
      const { job } = fakeJob(); // an autocomplete request: its first family is autocomplete
      const { pool, calls } = fakePool({ route: ROUTE, probe: false }, { cooldownMs: 900_000, started: true });
      const before = Date.now();
      const result = await run(
        pool,
        provider(async () => Promise.reject(blockOf(family))),
        job,
      );
      expect((result as { error: unknown }).error).toBeInstanceOf(DelayedError);
      // A later family's block: the job's first request was answered, so the probes it holds of it end first.
      expect(calls.filter((c) => c.startsWith('answered_before') || c.startsWith('blocked'))).toEqual(
        elsewhere ? ['blocked:too_many_429'] : ['answered_before:widgetdata', 'blocked:too_many_429'],
      );
      if (elsewhere) {
        expect(job.delayedUntil).toBeLessThan(before + 900_000);
        expect((job.progress as { reason: string }).reason).toMatch(/autocomplete requests are cooling down .*; trying another route$/);
      } else {
        expect(job.delayedUntil).toBeGreaterThanOrEqual(before + 900_000);
        expect((job.progress as { reason: string }).reason).not.toMatch(/trying another route/);
      }
    }
  });

  it('waits, releasing the route, when the route closes between its requests', async () => {
    const { job } = fakeJob();
    const { pool, calls } = fakePool({ route: ROUTE, probe: false });
    const result = await run(
      pool,
      provider(async () => Promise.reject(new RouteWaitError(ROUTE.name, 5_000, 'cooling'))),
      job,
    );
    expect((result as { error: unknown }).error).toBeInstanceOf(DelayedError);
    expect(calls).toEqual(['release:false']);
  });

  it('sends a refused request to another route, and fails it with a clear message once every route refused it', async () => {
    const { job } = fakeJob();
    const { pool, calls } = fakePool({ route: ROUTE, probe: false });
    const result = await run(
      pool,
      provider(async () => Promise.reject(new RefusedError('400'))),
      job,
    );
    expect((result as { error: unknown }).error).toBeInstanceOf(DelayedError);
    expect(calls).toEqual(['refused']);
    expect(job.data).toMatchObject({ refusedBy: [ROUTE.name] });

    const everywhere = fakePool({ refusedEverywhere: true });
    const failed = await run(
      everywhere.pool,
      provider(async () => ({})),
      job,
    );
    expect((failed as { error: unknown }).error).toBeInstanceOf(UnrecoverableError);
    expect(String((failed as { error: Error }).error.message)).toMatch(
      /refused autocomplete for "pizza" \(HTTP 400\) on every egress route \(proxy-a:3128\)/,
    );
    expect(everywhere.calls).toEqual([`clear:${ROUTE.name}`]);
  });

  it('fails a changed shape for good, and lets a network error take the normal retry', async () => {
    const changed = fakePool({ route: ROUTE, probe: false });
    const a = await run(
      changed.pool,
      provider(async () => Promise.reject(new MalformedResponseError('not its JSON'))),
      fakeJob().job,
    );
    expect((a as { error: unknown }).error).toBeInstanceOf(UnrecoverableError);
    expect(changed.calls).toEqual(['answered:changed']);

    const network = fakePool({ route: ROUTE, probe: true });
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const b = await run(
      network.pool,
      provider(async () => Promise.reject(reset)),
      fakeJob().job,
    );
    expect((b as { error: unknown }).error).toBe(reset);
    expect(network.calls).toEqual(['release:true']);
  });

  it('returns what Google served and tells the pool', async () => {
    const { pool, calls } = fakePool({ route: ROUTE, probe: true });
    const result = await run(
      pool,
      provider(async () => ({ kind: 'autocomplete', topics: [], outcome: 'empty' })),
      fakeJob().job,
    );
    expect(result).toEqual({ value: { kind: 'autocomplete', topics: [], outcome: 'empty' } });
    expect(calls).toEqual(['answered:answers']);
  });

  it("a token over the embed quota waits on the route's embed pages, spending nothing, and is never an answer", async () => {
    const { job, calls } = fakeJob({
      request: { kind: 'relatedQueries', keyword: 'pizza', timeframe: '12m', geo: '' },
      provider: 'google',
    });
    const { pool, calls: poolCalls } = fakePool({ route: ROUTE, probe: false });
    const before = Date.now();
    const result = await run(
      pool,
      provider(async () =>
        Promise.reject(Object.assign(new EmbedOverQuotaError('over quota'), { userType: 'USER_TYPE_EMBED_OVER_QUOTA' })),
      ),
      job,
    );
    expect((result as { error: unknown }).error).toBeInstanceOf(DelayedError);
    // Related lists are asked of explore's widget first (autumn 2026), so the job takes any route, not one whose
    // embed pages are open; the embed label is the embed pages' wait, not the route's.
    expect(poolCalls).toEqual(['over_quota']);
    expect(calls).toEqual(['moveToDelayed']);
    expect(job.delayedUntil).toBeGreaterThanOrEqual(before + 300_000);
    expect(job.progress).toMatchObject({ reason: expect.stringMatching(/embed pages are over Google's embed quota/) });
  });

  it('keeps how Google labelled the route, and warns when the label changes', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const { pool, calls } = fakePool({ route: ROUTE, probe: false }, undefined, { changed: true, before: 'USER_TYPE_LEGIT_USER' });
    const answer = {
      kind: 'autocomplete',
      topics: [],
      outcome: 'empty',
      provenance: { provider: 'google', userType: 'USER_TYPE_SCRAPER' },
    };
    await trendsFetchProcessor({ pool, provider: provider(async () => answer), logger })(fakeJob().job as unknown as Job, 'token');
    expect(calls).toEqual(['answered:answers', 'label:USER_TYPE_SCRAPER']);
    expect(lines.map((l) => JSON.parse(l) as { level: number; msg: string })).toEqual([
      expect.objectContaining({
        level: 40,
        msg: expect.stringMatching(/Google now labels route proxy-a:3128's client USER_TYPE_SCRAPER \(was USER_TYPE_LEGIT_USER\)/),
      }),
    ]);
  });
});
