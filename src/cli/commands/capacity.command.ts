// `insights capacity`: what a deployment needs for a demand, from the measured
// costs (src/domain/capacity/) and this deployment's own settings. Opens
// nothing: no database, no Redis.
import type { Command } from 'commander';
import {
  CapacityInputError,
  DEMAND_LIMITS,
  planCapacity,
  readDemandNumber,
  type CapacityPlan,
  type PlanSection,
} from '../../domain/capacity/capacity-plan.js';
import { MEASURED_COSTS, sourceOf } from '../../domain/capacity/measured-costs.js';
import { COMPLETED_DELIVERIES_KEPT } from '../../queue/job-catalogue.js';
import { QUEUES } from '../../queue/queue-names.js';
import { describeCommand } from '../command-index.js';
import type { CliContext } from '../context.js';
import { print, printJson, table, UsageError } from '../output.js';

interface CapacityOptions {
  researchPerDay: string;
  apiRps: string;
  insights: string;
  deliveriesPerDay?: string;
  months: string;
  json?: boolean;
}

const SECTION_TITLES: Record<PlanSection, string> = {
  egress: 'Google egress routes',
  web: 'Web processes',
  workers: 'Worker processes',
  postgres: 'Postgres',
  redis: 'Redis',
  paid: 'Paid providers (instead of, or beside, Google)',
};

const SINGULAR: Record<string, string> = { processes: 'process', routes: 'route' };

/** Bytes as a person reads them: 1.2 GB (powers of 1,000, as disks are sold). */
export function humanBytes(bytes: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} bytes` : `${value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

function printPlan(plan: CapacityPlan): void {
  const d = plan.demand;
  print(
    `Capacity for ${d.researchPerDay.toLocaleString('en-US')} research runs a day, ${d.apiRps.toLocaleString('en-US')} API requests a second, ${d.insights.toLocaleString('en-US')} insights, ${d.deliveriesPerDay.toLocaleString('en-US')} webhook deliveries a day, ${d.months} months kept`,
  );
  print(`Web and worker processes planned at ${plan.planningUtilisation * 100} % of their measured throughput.`);
  for (const section of Object.keys(SECTION_TITLES) as PlanSection[]) {
    print();
    print(SECTION_TITLES[section]);
    for (const f of plan.figures.filter((x) => x.section === section)) {
      const unit = f.value === 1 ? (SINGULAR[f.unit] ?? f.unit) : f.unit;
      const value = f.unit.startsWith('bytes')
        ? `${humanBytes(f.value)}${f.unit === 'bytes' ? '' : f.unit.slice(5)}`
        : `${f.value.toLocaleString('en-US')} ${unit}`;
      print(`  ${f.label}: ${value}`);
      print(`    = ${f.how}${f.sources.length > 0 ? ` [${[...new Set(f.sources.map(sourceOf))].join('; ')}]` : ''}`);
    }
  }
  print();
  print('Measured costs (docs/capacity.md; every run in docs/benchmarks.md):');
  print(
    table(
      Object.entries(MEASURED_COSTS).map(([name, c]) => ({
        figure: name,
        value: c.value,
        unit: c.unit,
        source: c.bench,
        measured: c.date,
      })),
    ),
  );
}

export function registerCapacityCommand(program: Command, context: () => CliContext): void {
  program
    .command('capacity')
    .description(describeCommand('capacity'))
    .requiredOption('--research-per-day <n>', 'research runs a day')
    .requiredOption('--api-rps <n>', 'API requests a second at the busiest time')
    .requiredOption('--insights <n>', 'insights kept (each refreshed daily)')
    .option('--deliveries-per-day <n>', `webhook deliveries a day (default: ${MEASURED_COSTS.matchesPerInsight.value} per research run)`)
    .option('--months <n>', 'months of research runs and deliveries kept', '12')
    .option('--json', 'print the plan as one JSON object')
    .action((options: CapacityOptions) => {
      let plan: CapacityPlan;
      try {
        const { config } = context();
        plan = planCapacity(
          {
            researchPerDay: readDemandNumber('--research-per-day', options.researchPerDay, DEMAND_LIMITS.researchPerDay),
            apiRps: readDemandNumber('--api-rps', options.apiRps, DEMAND_LIMITS.apiRps, false),
            insights: readDemandNumber('--insights', options.insights, DEMAND_LIMITS.insights),
            ...(options.deliveriesPerDay === undefined
              ? {}
              : { deliveriesPerDay: readDemandNumber('--deliveries-per-day', options.deliveriesPerDay, DEMAND_LIMITS.deliveriesPerDay) }),
            months: readDemandNumber('--months', options.months, DEMAND_LIMITS.months),
          },
          {
            requestsPerMinutePerRoute: config.trends.requestsPerMinute,
            embedGapMs: config.trends.embedGapMs,
            attemptsKeepDays: config.webhooks.attemptsKeepDays,
            queues: Object.keys(QUEUES).length,
            completedDeliveriesKept: { ageSeconds: COMPLETED_DELIVERIES_KEPT.age, count: COMPLETED_DELIVERIES_KEPT.count },
          },
        );
      } catch (error) {
        if (error instanceof CapacityInputError) throw new UsageError(error.message);
        throw error;
      }
      if (options.json) return printJson({ ...plan, measured_costs: MEASURED_COSTS });
      printPlan(plan);
    });
}
