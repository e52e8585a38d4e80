import { insightExplanationProblems } from '../../src/domain/scoring/explanation-check.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { findAccountRun, listAccountRuns } from '../../src/research/account-runs.repository.js';

let t: TestApp;
let env: Record<string, string>;
let key: string;

beforeAll(async () => {
  t = await createTestApp({ cacheTtlSeconds: 0 });
  key = await t.key('enterprise');
  env = { ...t.database.env, REDIS_URL: t.redis.url, REDIS_PREFIX: t.redis.prefix, TRENDS_PROVIDER: 'synthetic' };
});
afterAll(() => t.close());

const runCount = async () => (await t.database.db.selectFrom('research_runs').select('id').execute()).length;

describe('insights research', () => {
  it.each([[''], ['   '], ['!!! ??? ...'], ['x'.repeat(501)]])('refuses %j with exit 2 and enqueues nothing', async (idea) => {
    const before = await runCount();
    const result = await runCli(['research', idea, '--wait'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot research that/);
    expect(await runCount()).toBe(before);
  });

  it('runs 40 steps with --wait --json and the reports show all of them', async () => {
    const result = await runCli(
      ['research', 'Budget app for freelance designers', '--keyword', 'freelance budget', '--wait', '--json'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(out).toMatchObject({ status: 'succeeded', run_id: expect.stringMatching(/^run_/), insight_id: expect.stringMatching(/^ins_/) });
    expect(out.score).toBeGreaterThanOrEqual(0);
    expect(result.stderr).toMatch(/step 40\/40/);

    const byRun = await t.app.inject({ url: `/api/research-runs/${out.run_id}`, headers: bearer(key) });
    expect(byRun.statusCode).toBe(200);
    const report = byRun.json().data;
    expect(report.steps).toHaveLength(40);
    expect(report.steps.every((s: { status: string; summary: string | null }) => s.status === 'done' && s.summary)).toBe(true);
    expect(report.steps[3]).toMatchObject({ name: 'choose_primary', summary: expect.stringContaining('"freelance budget"') });
    expect(Object.keys(report.dimensions)).toHaveLength(8);
    // The synthetic provider answers like Google today: related queries listed through the embed flow,
    // topics empty. The steps say so, and the dimensions read the lists beside the modifier comparison.
    expect(report.steps[12].summary).toMatch(/^\d+ \(embed flow\): freelance budget /);
    for (const n of [14, 15]) expect(report.steps[n].summary).toMatch(/^empty: the simulated embed flow served no list/);
    expect(report.steps[26]).toMatchObject({
      name: 'pain_signals',
      summary: expect.stringMatching(
        /^modifier comparison: (under )?[\d.]+% of the phrase's searches; related queries: \d+ of \d+ related queries/,
      ),
    });
    expect(Object.values(report.dimensions).filter((d: any) => d.score !== null).length).toBeGreaterThanOrEqual(7);
    expect(report.dimensions.pain).toMatchObject({
      experimental: true,
      evidence: { sources: 'modifier comparison + related queries', modifier_terms: expect.stringContaining('how to') },
    });

    const byInsight = await t.app.inject({ url: `/api/insights/${out.insight_id}/research`, headers: bearer(key) });
    expect(byInsight.json().data.id).toBe(out.run_id);
    const insight = (await t.app.inject({ url: `/api/insights/${out.insight_id}`, headers: bearer(key) })).json();
    // No explanation says a number its evidence contradicts (the synthetic world, then a replay).
    expect(insightExplanationProblems(insight.dimensions)).toEqual([]);
    expect(insight).toMatchObject({ source: 'synthetic', category: 'finance', primary_keyword: 'freelance budget' });
    const points = (await t.app.inject({ url: `/api/insights/${out.insight_id}/trend-data`, headers: bearer(key) })).json().data;
    expect(points).toHaveLength(30);
    const d90 = (await t.app.inject({ url: `/api/insights/${out.insight_id}/trend-data?window=90d`, headers: bearer(key) })).json();
    expect(d90).toMatchObject({ window: '90d', interval: 'day' });
    expect(d90.data.length).toBeGreaterThanOrEqual(90);
    expect(insight.dimensions.momentum.evidence.model).toBe('90d');
    expect(insight.trend_class).toEqual(expect.any(String));
    expect(
      (await t.app.inject({ url: `/api/insights/${out.insight_id}/trend-data?window=5y`, headers: bearer(key) })).json(),
    ).toMatchObject({ window: '5y', interval: 'week' });

    const forecast = await t.app.inject({ url: `/api/insights/${out.insight_id}/forecast`, headers: bearer(key) });
    expect(forecast.statusCode).toBe(200);
    const f = forecast.json();
    if (!f.withheld) {
      expect(f.horizon).toBe(7);
      expect(f.points).toHaveLength(7);
      expect(Object.keys(f.backtest).sort()).toEqual(['coverage_80', 'coverage_95', 'mase', 'mase_seasonal_naive']);
      for (const p of f.points)
        expect(p.lower_95 <= p.lower_80 && p.lower_80 <= p.value && p.value <= p.upper_80 && p.upper_80 <= p.upper_95).toBe(true);
    } else {
      expect(f.reason).toEqual(expect.any(String));
    }

    const show = await runCli(['runs', 'show', out.run_id], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/aggregate/);
    const list = await runCli(['runs', 'list'], env);
    expect(list.stdout).toContain(out.run_id);
  }, 180_000);

  it('completes the recorded idea "pizza" with replay: 40 steps of recorded data, anchored on "bagel"', async () => {
    const result = await runCli(['research', 'pizza', '--wait', '--json'], { ...env, TRENDS_PROVIDER: 'replay' });
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(out).toMatchObject({ status: 'succeeded', insight_id: expect.stringMatching(/^ins_/) });
    const report = (await t.app.inject({ url: `/api/research-runs/${out.run_id}`, headers: bearer(key) })).json().data;
    expect(report.steps.map((s: { status: string }) => s.status)).toEqual(Array(40).fill('done'));
    // Step 12 compares with the recorded anchor; pizza and bagel are 40× apart, within 50×, so
    // steps 17 and 18 read the recorded maps of the two, and reach comes from the country map.
    expect(report.steps[11].summary).toMatch(/vs "bagel"/);
    expect(report.steps[16]).toMatchObject({
      name: 'interest_by_country',
      summary: expect.stringMatching(/^35 countries with data \(shares vs "bagel"\)/),
    });
    expect(report.steps[17]).toMatchObject({ name: 'interest_by_city', summary: expect.stringMatching(/^top cities: /) });
    expect(report.dimensions.reach).toMatchObject({
      evidence: { countries_with_data: 35, countries_with_interest: 33, compared_with: 'bagel' },
    });
    expect(report.dimensions.demand).toMatchObject({ evidence: { anchor: 'bagel' } });
    // No modifier comparison was ever recorded: the steps say so, and pain, intent and whitespace read
    // the recorded related queries instead (never an invented answer).
    expect(report.steps[26]).toMatchObject({
      name: 'pain_signals',
      summary: expect.stringMatching(/^modifier comparison: not read \(replay has no recording of it/),
    });
    for (const d of ['pain', 'intent'])
      expect(report.dimensions[d]).toMatchObject({
        score: expect.any(Number),
        evidence: { sources: 'related queries', not_read: expect.stringMatching(/^modifier comparison: replay has no recording/) },
      });
    // Every dimension but momentum: the recordings of "pizza" are weekly, and the momentum model reads days (it says so).
    expect(
      Object.entries(report.dimensions)
        .filter(([, d]: [string, any]) => d.score === null)
        .map(([name]) => name),
    ).toEqual(['momentum']);
    expect(report.dimensions.momentum.explanation).toMatch(/the series is weekly/);
    const insight = (await t.app.inject({ url: `/api/insights/${out.insight_id}`, headers: bearer(key) })).json();
    // No explanation says a number its evidence contradicts (the synthetic world, then a replay).
    expect(insightExplanationProblems(insight.dimensions)).toEqual([]);
    expect(insight).toMatchObject({ source: 'research', primary_keyword: 'pizza' });

    // What the run learned, served: related lists with Breakout marked, the map used, the trend class.
    const stepRows = await t.database.db.selectFrom('research_steps').select(['name', 'output']).where('run_id', '=', out.run_id).execute();
    const steps = Object.fromEntries(stepRows.map((s) => [s.name, s.output])) as Record<string, any>;
    expect(insight.related.keyword).toBe('pizza');
    expect(insight.related.queries.served).toBe('listed');
    expect(insight.related.queries.top.map((i: { label: string }) => i.label)).toEqual(
      steps.related_queries_top.items.slice(0, 25).map((i: { label: string }) => i.label),
    );
    expect(insight.related.queries.top.length).toBeGreaterThan(0);
    const rising = [...insight.related.queries.rising, ...insight.related.topics.rising];
    expect(rising.filter((i: { breakout: boolean }) => i.breakout).map((i: { formatted_value: string }) => i.formatted_value)).toEqual(
      rising.filter((i: { formatted_value: string }) => i.formatted_value === 'Breakout').map(() => 'Breakout'),
    );
    expect(insight.geography).toMatchObject({ keyword: 'pizza', map: 'against_anchor', compared_with: 'bagel', countries_with_data: 35 });
    expect(insight.geography.countries[0]).toMatchObject({
      code: expect.any(String),
      name: expect.any(String),
      relative: 100,
      share: expect.any(Number),
    });
    // Weekly recordings: no momentum, so no trend class (the 90 days would have been read as days).
    expect(insight.trend_class).toBeNull();
    expect(insight.dimensions.momentum.evidence).toMatchObject({ interval: 'week' });

    // Every window the run fetched (replay serves the recording nearest each window, daily or weekly).
    const windowOf = async (w: string) =>
      (await t.app.inject({ url: `/api/insights/${out.insight_id}/trend-data?window=${w}`, headers: bearer(key) })).json();
    const d30 = await windowOf('30d');
    expect(d30.window).toBe('30d');
    expect(d30.data).toEqual((await t.app.inject({ url: `/api/insights/${out.insight_id}/trend-data`, headers: bearer(key) })).json().data);
    const d90 = await windowOf('90d');
    // Replay serves the recording closest to 90 days, which for pizza is a weekly year: the interval says so.
    expect(d90).toMatchObject({
      window: '90d',
      interval: Date.parse(d90.data[1].date) - Date.parse(d90.data[0].date) === 86_400_000 ? 'day' : 'week',
    });
    expect(d90.data.map((p: { value: number }) => p.value)).toEqual(steps.interest_90d.values.map((v: number) => Math.round(v)));
    expect(d90.interval).toBe('week');
    // Nor a 7-day forecast dated as days after weekly points.
    expect(steps.forecast).toMatchObject({ withheld: true, reason: expect.stringMatching(/the series is weekly/) });
    for (const w of ['12m', '5y']) {
      const body = await windowOf(w);
      expect(body).toMatchObject({ window: w, interval: 'week' });
      expect(body.data.length).toBe(steps[`interest_${w}`].values.length);
      const gap = Date.parse(body.data[1].date) - Date.parse(body.data[0].date);
      expect(gap).toBe(7 * 86_400_000);
    }
    const chart = await t.app.inject({ url: `/api/insights/${out.insight_id}/chart.svg?window=5y`, headers: bearer(key) });
    expect(chart.statusCode).toBe(200);
    expect(chart.body).toMatch(/5 years, weekly/);
  }, 180_000);

  it('refuses at once with replay an idea none of whose phrases was recorded (issue 49: it failed at step 3 before), naming what is; retries a failed run', async () => {
    const result = await runCli(['research', 'Quantum knitting subscription', '--wait'], { ...env, TRENDS_PROVIDER: 'replay' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /recorded Google Trends data \(replay\), which has no phrase of this idea: it can research the phrases .*"pizza"/,
    );
    expect(result.stdout).not.toMatch(/run_[0-9a-z]+/);
    // A run that failed at step 3 (as such a run did) is resumed there.
    const runId = 'run_clifailedatthree1';
    await t.database.db
      .insertInto('research_runs')
      .values({
        id: runId,
        idea: 'Quantum knitting subscription',
        idea_key: 'quantum knitting subscription',
        keyword_hints: '[]',
        provider: 'replay',
        source: 'research',
        status: 'failed',
        next_step: 3,
        failed_step: 3,
        error: 'step 3 (autocomplete_phrases) failed: replay has no recording of autocomplete',
      })
      .execute();
    const retry = await runCli(['runs', 'retry', runId], env);
    expect(retry.code).toBe(0);
    expect(retry.stdout).toMatch(/Resumed .* at step 3/);
    const again = await runCli(['runs', 'retry', 'run_nope'], env);
    expect(again.code).toBe(2);
  }, 180_000);

  it("--account makes the run the account's: it is on the account's Research page and runs list, not on another's", async () => {
    // Founder review (issue 47): a run started with `insights research IDEA` was on no account's Research page.
    const mine = await t.researchKey('pro');
    const theirs = await t.researchKey('pro');
    const result = await runCli(['research', 'Meal kits for night-shift nurses', '--account', mine.accountId, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const runId = JSON.parse(result.stdout.trim().split('\n').at(-1)!).run_id as string;
    // What the Research page lists (research.pages.ts reads listAccountRuns for the signed-in account).
    expect((await listAccountRuns(t.database.db, mine.accountId, { limit: 20 })).rows.map((r) => r.id)).toContain(runId);
    expect((await listAccountRuns(t.database.db, theirs.accountId, { limit: 20 })).rows.map((r) => r.id)).not.toContain(runId);
    const run = await findAccountRun(t.database.db, mine.accountId, runId);
    expect(run).toMatchObject({ account_id: mine.accountId, visibility: 'private' });
    expect(await findAccountRun(t.database.db, theirs.accountId, runId)).toBeUndefined();
    // An unknown account is a usage error that starts nothing.
    const before = await runCount();
    const unknown = await runCli(['research', 'Meal kits for night-shift nurses', '--account', 'acc_nobody'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No account has the id/);
    expect(await runCount()).toBe(before);
  });

  it('answers 404 problems for unknown runs and for insights without a run', async () => {
    expect((await t.app.inject({ url: '/api/research-runs/run_0000000000000000000x', headers: bearer(key) })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/research-runs/nope', headers: bearer(key) })).statusCode).toBe(404);
  });
});
