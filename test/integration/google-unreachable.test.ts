// Issue 47: with Google's name not resolving, a research run retried for about
// 77 s before the founder was told anything. Through the real workers and the
// real client, whose only route is a proxy named `proxy.invalid` (a name that
// never resolves, RFC 6761): a route that has never had an answer fails the
// run at its first DNS failure, saying why; a route that has had answers
// retries, and the waiting run says why and when at once.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchThroughPool } from '../../src/providers/google/paced-fetch.js';
import { GoogleTrendsProvider } from '../../src/providers/google/provider.js';
import { EgressPool } from '../../src/providers/google/egress/egress-pool.js';
import { egressPoolFor } from '../../src/runtime/egress.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { findRun } from '../../src/research/run.repository.js';
import { runSummary } from '../../src/views/run.view.js';
import { runCli } from '../support/cli.js';
import { until } from '../support/pipeline.js';
import { createTestStack, type TestStack } from '../support/stack.js';

const PROXY = 'proxy.invalid:3128';
let stack: TestStack;

beforeAll(async () => {
  stack = await createTestStack({
    env: { TRENDS_PROVIDER: 'google', TRENDS_PROXY_URLS: `http://${PROXY}`, TRENDS_REQUESTS_PER_MINUTE: '0' },
    workers: true,
  });
});
afterAll(() => stack?.close());

const start = (idea: string) =>
  startRun(stack.database.db, new StepQueue(stack.pipeline!.queues.research), {
    idea,
    hints: [],
    provider: 'google',
    source: 'research',
  });

describe('Google unreachable (its name does not resolve)', () => {
  it('fails the run at the first DNS failure when the route has never had an answer, saying why', async () => {
    const begun = Date.now();
    const { id } = await start('Meal kits for night shift nurses');
    const run = await until(
      () => findRun(stack.database.db, id),
      (r) => r?.status === 'failed',
      60_000,
      'the run to fail',
    );
    // Not five attempts with backoff (about 75 s): the first failure, with the wait of the step that asked.
    expect(Date.now() - begun).toBeLessThan(30_000);
    expect(run!.error).toMatch(
      new RegExp(
        `cannot reach the egress proxy ${PROXY} \\(DNS: proxy\\.invalid not found\\) through route ${PROXY}, which has never had an answer from Google`,
      ),
    );
    const summary = runSummary(run!);
    expect(summary.error).toMatch(/failed: Google Trends could not be reached$/);
    expect(summary.what_to_do).toMatch(/could not reach Google Trends/);
  }, 90_000);

  it('on a route that has had answers, retries, and the waiting run says at once why and when it tries again', async () => {
    await egressPoolFor(stack.resources, stack.config).answered({ name: PROXY }, 'an earlier job', 'answers');
    const begun = Date.now();
    const { id } = await start('Standing desks for small flats');
    const run = await until(
      () => findRun(stack.database.db, id),
      (r) => /cannot reach/.test(r?.waiting_reason ?? ''),
      60_000,
      'the run to say why it waits',
    );
    expect(run!.status).toBe('waiting');
    // Told after the first failed attempt, well before the retries run out (5 attempts over about 75 s).
    expect(Date.now() - begun).toBeLessThan(30_000);
    const said = (retry: string) =>
      new RegExp(
        `cannot reach the egress proxy ${PROXY} \\(DNS: proxy\\.invalid not found\\), retrying ${retry} of 5 at \\d\\d:\\d\\d:\\d\\d UTC`,
      );
    // The API's answer (and the account's run page, which shows the same words), from the first failed attempt.
    expect(runSummary(run!).waiting_reason).toMatch(said('[2-5]'));
    const shown = await runCli(['runs', 'show', id], stack.env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(said('[2-5]'));
  }, 90_000);

  it("names Google's host when it is Google's name that does not resolve (a direct route)", async () => {
    const route = { name: 'direct' };
    const pool = new EgressPool(stack.resources.redis, `{${stack.redis.prefix}:dns}`, [route], {
      requestsPerMinute: 0,
      cooldownMs: 60_000,
      cooldownMaxMs: 60_000,
      refusedPauseMs: 60_000,
      requestTimeoutMs: 10_000,
    });
    const deps = { provider: new GoogleTrendsProvider({ connectTo: 'trends-google.invalid' }), pool, logger: pino({ level: 'silent' }) };
    const request = { kind: 'autocomplete', term: 'standing desk' } as const;
    const never = await fetchThroughPool(deps, 'job-1', request, []);
    expect(never).toMatchObject({
      kind: 'fail',
      message: expect.stringMatching(
        /^cannot reach Google \(DNS: trends-google\.invalid not found\) through route direct, which has never had an answer/,
      ),
    });
    await pool.answered(route, 'an earlier job', 'answers');
    const again = await fetchThroughPool(deps, 'job-2', request, []);
    expect(again).toMatchObject({ kind: 'retry', reason: 'cannot reach Google (DNS: trends-google.invalid not found)' });
  });
});
