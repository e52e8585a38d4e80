// The capacity model (issue 54, item 3): each figure is the least that covers
// the demand at the measured costs, names the benchmark it rests on, and
// docs/capacity.md carries the same table of measured costs as the code.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgramFor } from '../../src/cli/program.js';
import { UsageError } from '../../src/cli/output.js';
import { loadConfig, PROJECT_ROOT } from '../../src/config.js';
import {
  CapacityInputError,
  planCapacity,
  ROUTE_UTILISATION,
  PLANNING_UTILISATION,
  readDemandNumber,
  type CapacityPlan,
  type CapacitySettings,
} from '../../src/domain/capacity/capacity-plan.js';
import { MEASURED_COSTS, measuredCostsMarkdown } from '../../src/domain/capacity/measured-costs.js';
import { pino } from 'pino';
import { COMPLETED_DELIVERIES_KEPT } from '../../src/queue/job-catalogue.js';
import { QUEUES } from '../../src/queue/queue-names.js';

const SHIPPED: CapacitySettings = {
  requestsPerMinutePerRoute: 10,
  embedGapMs: 8_000,
  attemptsKeepDays: 30,
  queues: Object.keys(QUEUES).length,
  completedDeliveriesKept: { ageSeconds: COMPLETED_DELIVERIES_KEPT.age, count: COMPLETED_DELIVERIES_KEPT.count },
};
const ISSUE_54 = { researchPerDay: 1_000, apiRps: 500, insights: 1_000_000, months: 12 };

const figure = (plan: CapacityPlan, name: string) => {
  const f = plan.figures.find((x) => x.name === name);
  if (!f) throw new Error(`no figure ${name}`);
  return f;
};

describe('the measured costs', () => {
  it('docs/capacity.md carries the same table as the code', async () => {
    const doc = await readFile(path.join(PROJECT_ROOT, 'docs/capacity.md'), 'utf8');
    const between = /<!-- measured-costs:start -->\n([\s\S]*?)\n<!-- measured-costs:end -->/.exec(doc);
    expect(between, 'docs/capacity.md has the measured-costs markers').not.toBeNull();
    expect(between![1]).toBe(measuredCostsMarkdown());
  });

  it('each names a benchmark script of package.json, and a date', async () => {
    const scripts = Object.keys(JSON.parse(await readFile(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts as object);
    for (const [name, cost] of Object.entries(MEASURED_COSTS)) {
      expect(scripts, name).toContain(cost.bench);
      expect(cost.date, name).toMatch(/^2026-\d\d-\d\d$/);
      expect(cost.value, name).toBeGreaterThan(0);
    }
  });
});

describe('the capacity plan', () => {
  it('answers for 1,000 runs a day, 500 API requests a second and 1M insights, every figure naming its sources', () => {
    const plan = planCapacity(ISSUE_54, SHIPPED);
    const sections = new Set(plan.figures.map((f) => f.section));
    expect([...sections].sort()).toEqual(['egress', 'paid', 'postgres', 'redis', 'web', 'workers']);
    for (const f of plan.figures) {
      expect(Number.isFinite(f.value), f.name).toBe(true);
      for (const s of f.sources) expect(Object.keys(MEASURED_COSTS), f.name).toContain(s);
    }
    // Only the daily averages of the demand itself rest on no measured cost.
    expect(plan.figures.filter((f) => f.sources.length === 0).map((f) => f.name)).toEqual(['research_steps_per_s']);
    for (const name of ['routes', 'web_processes', 'worker_processes', 'total_bytes', 'redis_bytes'])
      expect(figure(plan, name).value, name).toBeGreaterThan(0);
  });

  it('asks for the fewest routes whose paced requests cover research and the refresh', () => {
    for (const demand of [ISSUE_54, { ...ISSUE_54, insights: 0 }, { ...ISSUE_54, researchPerDay: 40_000 }, { ...ISSUE_54, insights: 3 }]) {
      const plan = planCapacity(demand, SHIPPED);
      const needed = figure(plan, 'research_https_per_day').value + figure(plan, 'refresh_https_per_day').value;
      const routes = figure(plan, 'routes').value;
      // Planned at ROUTE_UTILISATION of their day (the rest is the slack for Google's blocks).
      const perRoute = SHIPPED.requestsPerMinutePerRoute * 60 * 24 * ROUTE_UTILISATION;
      expect(routes * perRoute).toBeGreaterThanOrEqual(needed - 1);
      expect((routes - 1) * perRoute).toBeLessThan(needed);
      if (needed > 0) expect(figure(plan, 'route_busy_hours').value).toBeLessThanOrEqual(24 * ROUTE_UTILISATION + 0.05);
      // Each route's embed pages stay under the pace TRENDS_EMBED_GAP_MS allows.
      expect(figure(plan, 'embed_pages_per_route_per_day').value).toBeLessThanOrEqual(86_400_000 / SHIPPED.embedGapMs);
    }
    // A slower pace needs more routes; a busier deployment never fewer.
    expect(figure(planCapacity(ISSUE_54, { ...SHIPPED, requestsPerMinutePerRoute: 5 }), 'routes').value).toBeGreaterThan(
      figure(planCapacity(ISSUE_54, SHIPPED), 'routes').value,
    );
    expect(figure(planCapacity({ ...ISSUE_54, insights: 2_000_000 }, SHIPPED), 'routes').value).toBeGreaterThan(
      figure(planCapacity(ISSUE_54, SHIPPED), 'routes').value,
    );
  });

  it('asks for the fewest web processes that serve the requests at the planning share of their measured rate', () => {
    for (const rps of [1, 500, 4_433, 4_434, 100_000]) {
      const plan = planCapacity({ ...ISSUE_54, apiRps: rps }, SHIPPED);
      for (const [name, cost] of [
        ['web_processes', MEASURED_COSTS.apiRequestsPerSecondQuiet.value],
        ['web_processes_loaded', MEASURED_COSTS.apiRequestsPerSecondLoaded.value],
      ] as const) {
        const n = figure(plan, name).value;
        expect(n * cost * PLANNING_UTILISATION, `${name} at ${rps}`).toBeGreaterThanOrEqual(rps);
        expect((n - 1) * cost * PLANNING_UTILISATION, `${name} at ${rps}`).toBeLessThan(rps);
      }
    }
    expect(figure(planCapacity({ ...ISSUE_54, apiRps: 0 }, SHIPPED), 'web_processes').value).toBe(0);
  });

  it('keeps more Postgres for more months, more days of attempts and more deliveries, and adds it up', () => {
    const plan = planCapacity(ISSUE_54, SHIPPED);
    const parts =
      figure(plan, 'insights_bytes').value +
      12 * (figure(plan, 'runs_bytes_per_month').value + figure(plan, 'deliveries_bytes_per_month').value) +
      figure(plan, 'attempts_bytes').value;
    expect(Math.abs(figure(plan, 'total_bytes').value - parts)).toBeLessThanOrEqual(13);
    expect(figure(planCapacity({ ...ISSUE_54, months: 24 }, SHIPPED), 'total_bytes').value).toBeGreaterThan(
      figure(plan, 'total_bytes').value,
    );
    expect(figure(planCapacity(ISSUE_54, { ...SHIPPED, attemptsKeepDays: 90 }), 'attempts_bytes').value).toBe(
      3 * figure(plan, 'attempts_bytes').value,
    );
    // Deliveries default to each run's insight matching as many subscriptions as bench:webhooks measured.
    expect(plan.demand.deliveriesPerDay).toBe(Math.round(1_000 * MEASURED_COSTS.matchesPerInsight.value));
    expect(
      planCapacity({ ...ISSUE_54, deliveriesPerDay: 0 }, SHIPPED).figures.find((f) => f.name === 'deliveries_bytes_per_month')!.value,
    ).toBe(0);
  });

  it("counts Redis's delivered jobs up to the job catalogue's cap, and the events streams once per queue", () => {
    const redis = (deliveriesPerDay: number) =>
      figure(planCapacity({ ...ISSUE_54, deliveriesPerDay }, SHIPPED), 'redis_deliveries_bytes').value;
    expect(redis(1_000)).toBeLessThan(redis(5_000));
    expect(redis(COMPLETED_DELIVERIES_KEPT.count)).toBe(redis(10 * COMPLETED_DELIVERIES_KEPT.count));
    const plan = planCapacity(ISSUE_54, SHIPPED);
    expect(figure(plan, 'redis_streams_bytes').value).toBe(5 * MEASURED_COSTS.redisBytesPerEventsStream.value);
    expect(figure(plan, 'redis_bytes').value).toBe(
      figure(plan, 'redis_streams_bytes').value + figure(plan, 'redis_deliveries_bytes').value,
    );
  });

  it('refuses a route pace of 0 (no ceiling to size by), saying which setting', () => {
    expect(() => planCapacity(ISSUE_54, { ...SHIPPED, requestsPerMinutePerRoute: 0 })).toThrow(/TRENDS_REQUESTS_PER_MINUTE/);
  });
});

describe('reading the demand', () => {
  it('takes numbers as people type them, and says what is wrong with the rest', () => {
    expect(readDemandNumber('--insights', '1,000,000', 1e10)).toBe(1_000_000);
    expect(readDemandNumber('--insights', '1e6', 1e10)).toBe(1_000_000);
    expect(readDemandNumber('--api-rps', '12.5', 1e7, false)).toBe(12.5);
    for (const bad of ['', 'many', '-1', '1.5', 'Infinity', '1e11', '0x'])
      expect(() => readDemandNumber('--insights', bad, 1e10), bad).toThrow(CapacityInputError);
    expect(() => readDemandNumber('--research-per-day', 'lots', 1e7)).toThrow(
      '--research-per-day must be a whole number from 0 to 10,000,000 (got "lots")',
    );
  });
});

describe('insights capacity', () => {
  const context = () => ({ config: loadConfig({}), logger: pino({ level: 'silent' }) });
  async function run(args: string[]): Promise<string> {
    const program = await buildProgramFor(['capacity', ...args], context);
    let out = '';
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stdout.write;
    try {
      await program.parseAsync(['node', 'insights', 'capacity', ...args]);
    } finally {
      process.stdout.write = write;
    }
    return out;
  }

  it('prints the plan with each figure’s benchmark and date, and the same plan as JSON', async () => {
    const args = ['--research-per-day', '1000', '--api-rps', '500', '--insights', '1000000'];
    const text = await run(args);
    expect(text).toMatch(/^Google egress routes$/m);
    expect(text).toMatch(/egress routes \(proxies with addresses of their own\): \d+ routes/);
    expect(text).toMatch(/\[bench:google, 2026-11-27/);
    expect(text).toMatch(/\[bench:api, 2026-11-24\]/);
    expect(text).toMatch(/\[bench:storage, 2026-11-28\]/);
    const json = JSON.parse(await run([...args, '--json'])) as CapacityPlan & { measured_costs: object };
    expect(json.figures).toEqual(planCapacity(ISSUE_54, SHIPPED).figures);
    expect(Object.keys(json.measured_costs)).toEqual(Object.keys(MEASURED_COSTS));
  });

  it('refuses bad input as a usage error naming the option', async () => {
    await expect(run(['--research-per-day', 'x', '--api-rps', '500', '--insights', '1'])).rejects.toThrow(UsageError);
    await expect(run(['--research-per-day', '10', '--api-rps', '-3', '--insights', '1'])).rejects.toThrow(
      /--api-rps must be a number from 0/,
    );
  });
});
