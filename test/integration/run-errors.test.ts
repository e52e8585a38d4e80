// A research run's error is for operators: it may name an egress proxy's address
// and quote what Google sent. Before, any key holder read it whole in
// GET /api/research-runs/{id}. Clients now get which step failed and what kind of
// failure it was; operators keep the full text (insights runs show).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, markRunFailed, recordStepAttemptFailed, setRunState } from '../../src/research/run.repository.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key('free');
});
afterAll(() => t.close());

const INTERNAL = ['10.0.0.5', '3128', 'proxy-user', '<html>', 'internal-marker-7f3a', 'NID='];

const FAILURES: Array<[string, RegExp]> = [
  ['Google Trends did not answer within 20000 ms (via 10.0.0.5:3128)', /did not answer in time/],
  ['proxy 10.0.0.5:3128 refused CONNECT trends.google.com:443 (407)', /could not be reached/],
  [
    'Google Trends answered explore for "x" with something that is not its JSON: "<html><body>internal-marker-7f3a NID=abc…"',
    /form that is not recognised/,
  ],
  ['Google Trends is rate limiting us: 429 via 10.0.0.5:3128 while fetching explore for "x"', /rate limited/],
  ['connect ECONNREFUSED 10.0.0.5:3128', /could not be reached/],
  ["Cannot read properties of undefined (reading 'internal-marker-7f3a')", /an unexpected error/],
];

describe('a failed research run, as API clients see it', () => {
  it.each(FAILURES)('%s', async (internal, publicly) => {
    const run = await createRun(t.database.db, {
      idea: 'error hygiene',
      ideaKey: `error hygiene ${Math.random()}`,
      hints: [],
      provider: 'google',
      source: 'research',
    });
    await recordStepAttemptFailed(t.database.db, {
      runId: run.id,
      step: 12,
      name: 'compare_anchor',
      error: internal,
      attempt: 3,
      startedAt: new Date(),
    });
    await markRunFailed(t.database.db, run.id, 12, `step 12 (compare_anchor) failed: ${internal}`);
    const res = await t.app.inject({ url: `/api/research-runs/${run.id}`, headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    for (const secret of INTERNAL) expect(res.body, `the answer holds "${secret}"`).not.toContain(secret);
    const data = res.json().data;
    expect(data.error).toMatch(/^step 12 \(\w+\) failed: /);
    expect(data.error).toMatch(publicly);
    expect(data.steps[11].error).toMatch(publicly);

    // Operators keep the whole text.
    const show = await runCli(['runs', 'show', run.id], { ...t.database.env, REDIS_URL: t.redis.url, REDIS_PREFIX: t.redis.prefix });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(internal.slice(0, 40));
  });

  it("a waiting run says what it waits for, in the idea's own words, and nothing else", async () => {
    const run = await createRun(t.database.db, {
      idea: 'waiting hygiene',
      ideaKey: 'waiting hygiene',
      hints: [],
      provider: 'google',
      source: 'research',
    });
    await setRunState(t.database.db, run.id, {
      status: 'waiting',
      waitingReason: 'waiting for Google Trends (interest over time for "meal planner" (today 1-m))',
    });
    let data = (await t.app.inject({ url: `/api/research-runs/${run.id}`, headers: bearer(key) })).json().data;
    expect(data.waiting_reason).toBe('waiting for Google Trends (interest over time for "meal planner" (today 1-m))');
    const other = await createRun(t.database.db, {
      idea: 'waiting hygiene 2',
      ideaKey: 'waiting hygiene 2',
      hints: [],
      provider: 'google',
      source: 'research',
    });
    await setRunState(t.database.db, other.id, { status: 'waiting', waitingReason: 'proxy 10.0.0.5:3128 paused' });
    data = (await t.app.inject({ url: `/api/research-runs/${other.id}`, headers: bearer(key) })).json().data;
    expect(data.waiting_reason).toBe('waiting');
  });
});
