// A research run against Google as it answers today completes all 40 steps
// with at least 7 of 8 dimensions scored: through the real worker process and
// the real Google client, against the loopback Google (whatever it serves for
// related lists: the steps record it and the research goes on), and against
// the synthetic provider, which serves related lists empty as Google does.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { RELATED_SERVED } from '../../src/domain/research/served-evidence.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

/**
 * What is measured here is the evidence a run reads, not the pace: no pacing of our own, and a
 * loopback Google without its per-address budget (google-e2e.test.ts runs research at Google's pace).
 */
const UNPACED = { TRENDS_REQUESTS_PER_MINUTE: '0' };

let database: TestDatabase;
let redis: TestRedis;
let google: GoogleOnLoopback;
let worker: ServiceProcess | undefined;
let env: Record<string, string>;
beforeAll(async () => {
  database = await createTestDatabase();
  redis = await createTestRedis();
  google = await startGoogleOnLoopback({ proxies: 1, requestsPerMinute: 0 });
  env = { ...database.env, ...google.env, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, TRENDS_PROVIDER: 'google', ...UNPACED, TRENDS_WAIT_MS: '1000' };
  // One worker runs both kinds of run: each run names its provider (live Google goes through the trends queue).
  worker = new ServiceProcess('worker', env);
  await worker.ready;
});
afterAll(async () => {
  await worker?.kill('SIGTERM');
  await google.stop();
  await redis.destroy();
  await database.destroy();
});

async function stepsOf(runId: string): Promise<Record<string, { status: string; output: any }>> {
  const rows = await sql<{ name: string; status: string; output: any }>`select name, status, output from research_steps where run_id = ${runId}`.execute(database.db);
  return Object.fromEntries(rows.rows.map((r) => [r.name, r]));
}

async function research(idea: string, env: Record<string, string>) {
  const done = await runCli(['research', idea, '--wait', '--json'], env);
  expect(done.code, done.stderr).toBe(0);
  const out = JSON.parse(done.stdout.trim().split('\n').at(-1)!) as { run_id: string; status: string };
  expect(out.status).toBe('succeeded');
  const steps = await stepsOf(out.run_id);
  expect(Object.values(steps).filter((s) => s.status === 'done')).toHaveLength(40);
  const dimensions = steps.aggregate!.output.dimensions as Record<string, { score: number | null }>;
  return { steps, scored: Object.values(dimensions).filter((d) => d.score !== null).length };
}

describe('research against the loopback Google through the real client', () => {
  it('completes 40 steps with at least 7 of 8 dimensions, reading the modifier comparison Google answered', async () => {
    const { steps, scored } = await research('Meal planning app for busy parents', env);
    expect(scored).toBeGreaterThanOrEqual(7);
    for (const name of ['related_queries_top', 'related_queries_rising', 'related_topics_top', 'related_topics_rising']) {
      expect(RELATED_SERVED).toContain(steps[name]!.output.served);
    }
    // The comparison went to Google with the OR syntax, and Google answered it.
    const comparison = steps.pain_signals!.output.modifier_comparison;
    expect(comparison).toMatchObject({ outcome: 'served', provenance: { provider: 'google' } });
    expect(comparison.keywords.slice(1).every((k: string) => k.includes(' + '))).toBe(true);
    expect(steps.score_pain!.output.evidence.sources).toMatch(/modifier comparison/);
  }, 300_000);
});

describe('research against the synthetic provider (related lists served empty)', () => {
  it('completes 40 steps with at least 7 of 8 dimensions; steps 13-16 record the empty lists', async () => {
    const { steps, scored } = await research('Dog walking marketplace for apartments', { ...env, TRENDS_PROVIDER: 'synthetic' });
    expect(scored).toBeGreaterThanOrEqual(7);
    for (const name of ['related_queries_top', 'related_queries_rising', 'related_topics_top', 'related_topics_rising']) expect(steps[name]!.output.served).toBe('empty');
    expect(steps.breakout!.output.rising_queries).toBe('empty');
    for (const d of ['pain', 'intent', 'breadth', 'whitespace']) expect(steps[`score_${d}`]!.output.score, d).not.toBeNull();
  }, 300_000);
});
