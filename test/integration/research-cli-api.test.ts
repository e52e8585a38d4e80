import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';

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
    const result = await runCli(['research', 'Budget app for freelance designers', '--keyword', 'freelance budget', '--wait', '--json'], env);
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

    const byInsight = await t.app.inject({ url: `/api/insights/${out.insight_id}/research`, headers: bearer(key) });
    expect(byInsight.json().data.id).toBe(out.run_id);
    const insight = (await t.app.inject({ url: `/api/insights/${out.insight_id}`, headers: bearer(key) })).json();
    expect(insight).toMatchObject({ source: 'synthetic', category: 'fintech', primary_keyword: 'freelance budget' });
    const points = (await t.app.inject({ url: `/api/insights/${out.insight_id}/trend-data`, headers: bearer(key) })).json().data;
    expect(points).toHaveLength(30);

    const forecast = await t.app.inject({ url: `/api/insights/${out.insight_id}/forecast`, headers: bearer(key) });
    expect(forecast.statusCode).toBe(200);
    const f = forecast.json();
    if (!f.withheld) {
      expect(f.horizon).toBe(7);
      expect(f.points).toHaveLength(7);
      expect(Object.keys(f.backtest).sort()).toEqual(['coverage_80', 'coverage_95', 'mase', 'mase_seasonal_naive']);
      for (const p of f.points) expect(p.lower_95 <= p.lower_80 && p.lower_80 <= p.value && p.value <= p.upper_80 && p.upper_80 <= p.upper_95).toBe(true);
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
    expect(report.steps[16]).toMatchObject({ name: 'interest_by_country', summary: expect.stringMatching(/^35 countries with data \(shares vs "bagel"\)/) });
    expect(report.steps[17]).toMatchObject({ name: 'interest_by_city', summary: expect.stringMatching(/^top cities: /) });
    expect(report.dimensions.reach).toMatchObject({ evidence: { countries_with_data: 35, countries_with_interest: 33, compared_with: 'bagel' } });
    expect(report.dimensions.demand).toMatchObject({ evidence: { anchor: 'bagel' } });
    const insight = (await t.app.inject({ url: `/api/insights/${out.insight_id}`, headers: bearer(key) })).json();
    expect(insight).toMatchObject({ source: 'research', primary_keyword: 'pizza' });
  }, 180_000);

  it('fails clearly with replay when a request was never recorded, and exits 1 naming the step', async () => {
    const result = await runCli(['research', 'Quantum knitting subscription', '--wait'], { ...env, TRENDS_PROVIDER: 'replay' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/failed at step 3 \(autocomplete_phrases\).*replay has no recording of autocomplete/);
    const runId = /run_[0-9a-z]+/.exec(result.stdout)![0];
    const retry = await runCli(['runs', 'retry', runId], env);
    expect(retry.code).toBe(0);
    expect(retry.stdout).toMatch(/Resumed .* at step 3/);
    const again = await runCli(['runs', 'retry', 'run_nope'], env);
    expect(again.code).toBe(2);
  }, 180_000);

  it('answers 404 problems for unknown runs and for insights without a run', async () => {
    expect((await t.app.inject({ url: '/api/research-runs/run_0000000000000000000x', headers: bearer(key) })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/research-runs/nope', headers: bearer(key) })).statusCode).toBe(404);
  });
});
