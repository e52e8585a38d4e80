// The capacity model: from a deployment's demand (research runs a day, API
// requests a second, insights kept) and its settings, how many egress routes,
// web and worker processes, and how much Postgres and Redis it needs. Pure:
// every figure is arithmetic on MEASURED_COSTS and names the costs it used.
import { STEP_NAMES } from '../research/step-names.js';
import { MEASURED_COSTS as C, type CostName } from './measured-costs.js';

export interface CapacityDemand {
  /** Research runs a day (submitted through the API, the CLI and discovery). */
  readonly researchPerDay: number;
  /** API requests a second at the busiest time. */
  readonly apiRps: number;
  /** Insights kept, every one refreshed daily from Google. */
  readonly insights: number;
  /** Webhook deliveries a day; by default each run's insight matches as many subscriptions as in bench:webhooks. */
  readonly deliveriesPerDay?: number;
  /** Months of runs and deliveries kept (neither is pruned). */
  readonly months: number;
}

/** The settings of src/config the model reads (the CLI passes the deployment's own). */
export interface CapacitySettings {
  /** TRENDS_REQUESTS_PER_MINUTE: each egress route's pace. */
  readonly requestsPerMinutePerRoute: number;
  /** TRENDS_EMBED_GAP_MS: a route's embed pages at least this far apart. */
  readonly embedGapMs: number;
  /** WEBHOOK_ATTEMPTS_KEEP_DAYS: attempt rows kept this long. */
  readonly attemptsKeepDays: number;
  /** BullMQ queues, each with an events stream (src/queue/queue-names.ts). */
  readonly queues: number;
  /** Completed delivery jobs Redis keeps: those of the last `ageSeconds`, at most `count` (src/queue/job-catalogue.ts). */
  readonly completedDeliveriesKept: { readonly ageSeconds: number; readonly count: number };
}

export type PlanSection = 'egress' | 'web' | 'workers' | 'postgres' | 'redis' | 'paid';

export interface PlanFigure {
  readonly section: PlanSection;
  /** Stable name, for --json readers. */
  readonly name: string;
  readonly label: string;
  readonly value: number;
  readonly unit: string;
  /** How it was worked out, in words with the numbers used. */
  readonly how: string;
  /** The measured costs it rests on (MEASURED_COSTS); a figure resting only on the demand and settings has none. */
  readonly sources: readonly CostName[];
}

export interface CapacityPlan {
  readonly demand: Required<CapacityDemand>;
  readonly settings: CapacitySettings;
  /** Web and worker processes are planned at this share of their measured throughput. */
  readonly planningUtilisation: number;
  readonly figures: readonly PlanFigure[];
}

/**
 * Web and worker processes are planned to run at half of what a benchmark
 * measured: a choice, not a measurement. The benchmarks ran one process on a
 * 2-vCPU machine it shared with Postgres, Redis and the load generator; a
 * deployment also has bursts the daily averages below do not show.
 */
export const PLANNING_UTILISATION = 0.5;

/**
 * The share of a day an egress route is planned to send at its pace. The rest is the slack for Google's
 * blocks and their cooldowns (10 minutes doubling to 60 after each block in a row, docs/operations.md): a
 * plan that fills the day leaves a refresh that no longer fits after one block. A choice, not a measurement.
 */
export const ROUTE_UTILISATION = 0.75;

/** Bounds on the demand: far past any deployment, and small enough that the arithmetic stays exact. */
export const DEMAND_LIMITS = {
  researchPerDay: 10_000_000,
  apiRps: 10_000_000,
  insights: 10_000_000_000,
  deliveriesPerDay: 1_000_000_000,
  months: 120,
} as const;

export class CapacityInputError extends Error {}

/**
 * Reads one demand figure as a person typed it ("1000", "1,000", "1e6"):
 * a number from 0 to its limit, whole where `whole`. Throws with what was wrong.
 */
export function readDemandNumber(option: string, raw: string, limit: number, whole = true): number {
  const text = raw.trim().replaceAll(',', '').replaceAll('_', '');
  const value = text === '' ? Number.NaN : Number(text);
  const kind = whole ? 'a whole number' : 'a number';
  if (!Number.isFinite(value) || value < 0 || value > limit || (whole && !Number.isInteger(value)))
    throw new CapacityInputError(`${option} must be ${kind} from 0 to ${limit.toLocaleString('en-US')} (got "${raw.slice(0, 40)}")`);
  return value;
}

const DAY_S = 86_400;
const MONTH_DAYS = 30.44;
const STEPS_PER_RUN = STEP_NAMES.length;

const ceilAtLeast = (x: number, min: number) => Math.max(min, Math.ceil(x - 1e-9));
const fmt = (x: number, digits = 2) => x.toLocaleString('en-US', { maximumFractionDigits: digits });

export function planCapacity(input: CapacityDemand, settings: CapacitySettings): CapacityPlan {
  if (!(settings.requestsPerMinutePerRoute > 0))
    throw new CapacityInputError(
      'TRENDS_REQUESTS_PER_MINUTE is 0 (routes send as fast as jobs ask), so a route has no ceiling to size by: set it (default 10)',
    );
  const demand: Required<CapacityDemand> = {
    ...input,
    deliveriesPerDay: input.deliveriesPerDay ?? Math.round(input.researchPerDay * C.matchesPerInsight.value),
  };
  const { researchPerDay: runs, apiRps, insights, deliveriesPerDay: deliveries, months } = demand;
  const figures: PlanFigure[] = [];
  const add = (f: PlanFigure) => figures.push(f);
  const any = runs + insights > 0 ? 1 : 0;

  // Egress: Google's requests against a route's paced ceiling.
  const researchHttps = runs * C.googleHttpsPerRun.value;
  const refreshHttps = insights * C.googleHttpsPerRefreshedInsight.value;
  const routePerDay = settings.requestsPerMinutePerRoute * 60 * 24;
  const routes = ceilAtLeast((researchHttps + refreshHttps) / (routePerDay * ROUTE_UTILISATION), any);
  add({
    section: 'egress',
    name: 'research_https_per_day',
    label: 'Google requests a day for research',
    value: Math.round(researchHttps),
    unit: 'HTTPS requests / day',
    how: `${fmt(runs)} runs × ${C.googleHttpsPerRun.value} (of which ${C.googleEmbedHttpsPerRun.value} the embed flow)`,
    sources: ['googleHttpsPerRun', 'googleEmbedHttpsPerRun'],
  });
  add({
    section: 'egress',
    name: 'refresh_https_per_day',
    label: 'Google requests a day for the daily refresh',
    value: Math.round(refreshHttps),
    unit: 'HTTPS requests / day',
    how: `${fmt(insights)} insights × ${C.googleHttpsPerRefreshedInsight.value}`,
    sources: ['googleHttpsPerRefreshedInsight'],
  });
  add({
    section: 'egress',
    name: 'routes',
    label: 'egress routes (proxies with addresses of their own)',
    value: routes,
    unit: 'routes',
    how: `${fmt(researchHttps + refreshHttps, 0)} requests a day ÷ (${fmt(routePerDay)} a route × ${ROUTE_UTILISATION}, the rest of its day the slack for blocks) (TRENDS_REQUESTS_PER_MINUTE=${settings.requestsPerMinutePerRoute}, under Google's ${C.googleRequestsPerMinuteLimit.value} a minute; ${C.googleRunsPerHourPerRoute.value} runs an hour per route measured at 10 a minute)`,
    sources: ['googleHttpsPerRun', 'googleHttpsPerRefreshedInsight', 'googleRequestsPerMinuteLimit', 'googleRunsPerHourPerRoute'],
  });
  const refreshHours = routes > 0 ? refreshHttps / (routes * settings.requestsPerMinutePerRoute * 60) : 0;
  add({
    section: 'egress',
    name: 'refresh_hours',
    label: 'hours the daily refresh takes on those routes (research shares them)',
    value: Math.round(refreshHours * 10) / 10,
    unit: 'hours',
    how: `${fmt(refreshHttps, 0)} requests ÷ (${routes} routes × ${settings.requestsPerMinutePerRoute * 60} an hour)`,
    sources: ['googleHttpsPerRefreshedInsight'],
  });
  const busyHours = routes > 0 ? (researchHttps + refreshHttps) / (routes * settings.requestsPerMinutePerRoute * 60) : 0;
  add({
    section: 'egress',
    name: 'route_busy_hours',
    label: 'hours a day each route sends at its pace (what is left of 24 is the slack for blocks and cooldowns)',
    value: Math.round(busyHours * 10) / 10,
    unit: 'hours / day',
    how: `${fmt(researchHttps + refreshHttps, 0)} requests ÷ (${routes} routes × ${settings.requestsPerMinutePerRoute * 60} an hour)`,
    sources: ['googleHttpsPerRun', 'googleHttpsPerRefreshedInsight'],
  });
  const embedPerRoute = routes > 0 ? (runs * (C.googleEmbedHttpsPerRun.value / 2)) / routes : 0;
  const embedCeiling = settings.embedGapMs > 0 ? Math.floor((DAY_S * 1000) / settings.embedGapMs) : Number.POSITIVE_INFINITY;
  add({
    section: 'egress',
    name: 'embed_pages_per_route_per_day',
    label: `embed pages a day per route (ceiling ${Number.isFinite(embedCeiling) ? fmt(embedCeiling) : 'none'} at TRENDS_EMBED_GAP_MS=${settings.embedGapMs})`,
    value: Math.round(embedPerRoute),
    unit: 'embed pages / day / route',
    how: `${fmt(runs)} runs × ${C.googleEmbedHttpsPerRun.value / 2} embed pages ÷ ${routes} routes`,
    sources: ['googleEmbedHttpsPerRun'],
  });

  // Web processes.
  for (const [name, cost, when] of [
    ['web_processes', 'apiRequestsPerSecondQuiet', 'on a quiet machine'],
    ['web_processes_loaded', 'apiRequestsPerSecondLoaded', 'at the loaded machine’s rate'],
  ] as const) {
    const perProcess = C[cost].value * PLANNING_UTILISATION;
    add({
      section: 'web',
      name,
      label: `web processes, ${when}`,
      value: ceilAtLeast(apiRps / perProcess, apiRps > 0 ? 1 : 0),
      unit: 'processes',
      how: `${fmt(apiRps)} requests/s ÷ (${fmt(C[cost].value)} × ${PLANNING_UTILISATION})`,
      sources: [cost],
    });
  }

  // Worker processes: research steps, the refresh while it runs, deliveries.
  const stepsPerS = (runs * STEPS_PER_RUN) / DAY_S;
  const refreshPerS = refreshHours > 0 ? insights / (refreshHours * 3600) : 0;
  const deliveriesPerS = deliveries / DAY_S;
  add({
    section: 'workers',
    name: 'research_steps_per_s',
    label: 'research steps a second (daily average)',
    value: Math.round(stepsPerS * 100) / 100,
    unit: 'steps / s',
    how: `${fmt(runs)} runs × ${STEPS_PER_RUN} steps ÷ 86,400 s`,
    sources: [],
  });
  add({
    section: 'workers',
    name: 'refreshes_per_s',
    label: 'insights refreshed a second while the refresh runs (paced by Google)',
    value: Math.round(refreshPerS * 100) / 100,
    unit: 'insights / s',
    how: `${fmt(insights)} insights ÷ ${fmt(refreshHours, 1)} hours`,
    sources: ['googleHttpsPerRefreshedInsight'],
  });
  add({
    section: 'workers',
    name: 'deliveries_per_s',
    label: `webhook deliveries a second (daily average of ${fmt(deliveries)} a day${input.deliveriesPerDay === undefined ? `: ${C.matchesPerInsight.value} per run` : ''})`,
    value: Math.round(deliveriesPerS * 100) / 100,
    unit: 'deliveries / s',
    how: `${fmt(deliveries)} deliveries ÷ 86,400 s`,
    sources: input.deliveriesPerDay === undefined ? ['matchesPerInsight'] : [],
  });
  for (const [name, stepsCost, when] of [
    ['worker_processes', 'workerStepsPerSecondQuiet', 'on a quiet machine'],
    ['worker_processes_loaded', 'workerStepsPerSecondLoaded', 'at the loaded machine’s research rate'],
  ] as const) {
    const busy = stepsPerS / C[stepsCost].value + refreshPerS / C.refreshesPerSecond.value + deliveriesPerS / C.deliveriesPerSecond.value;
    add({
      section: 'workers',
      name,
      label: `worker processes, ${when}`,
      value: ceilAtLeast(busy / PLANNING_UTILISATION, runs + insights + deliveries > 0 ? 1 : 0),
      unit: 'processes',
      how: `(${fmt(stepsPerS)} ÷ ${fmt(C[stepsCost].value)} + ${fmt(refreshPerS)} ÷ ${C.refreshesPerSecond.value} + ${fmt(deliveriesPerS)} ÷ ${fmt(C.deliveriesPerSecond.value)}) ÷ ${PLANNING_UTILISATION} = ${fmt(busy / PLANNING_UTILISATION, 3)}`,
      sources: [stepsCost, 'refreshesPerSecond', 'deliveriesPerSecond'],
    });
  }

  // Postgres: insights are rewritten in place; runs and deliveries are kept; attempts for their days.
  const insightBytes = insights * C.postgresBytesPerInsight.value;
  const runBytesPerMonth = runs * MONTH_DAYS * C.postgresBytesPerRun.value;
  const deliveryBytesPerMonth = deliveries * MONTH_DAYS * C.postgresBytesPerDelivery.value;
  const attemptBytes = deliveries * settings.attemptsKeepDays * C.postgresBytesPerAttempt.value;
  add({
    section: 'postgres',
    name: 'insights_bytes',
    label: 'insights (with their series and forecasts)',
    value: Math.round(insightBytes),
    unit: 'bytes',
    how: `${fmt(insights)} × ${fmt(C.postgresBytesPerInsight.value)} bytes`,
    sources: ['postgresBytesPerInsight'],
  });
  add({
    section: 'postgres',
    name: 'runs_bytes_per_month',
    label: 'research runs and their steps, added a month',
    value: Math.round(runBytesPerMonth),
    unit: 'bytes / month',
    how: `${fmt(runs)} runs × ${MONTH_DAYS} days × ${fmt(C.postgresBytesPerRun.value)} bytes`,
    sources: ['postgresBytesPerRun'],
  });
  add({
    section: 'postgres',
    name: 'deliveries_bytes_per_month',
    label: 'webhook deliveries, added a month',
    value: Math.round(deliveryBytesPerMonth),
    unit: 'bytes / month',
    how: `${fmt(deliveries)} deliveries × ${MONTH_DAYS} days × ${fmt(C.postgresBytesPerDelivery.value)} bytes`,
    sources: ['postgresBytesPerDelivery'],
  });
  add({
    section: 'postgres',
    name: 'attempts_bytes',
    label: `delivery attempts kept (WEBHOOK_ATTEMPTS_KEEP_DAYS=${settings.attemptsKeepDays}; one attempt a delivery)`,
    value: Math.round(attemptBytes),
    unit: 'bytes',
    how: `${fmt(deliveries)} a day × ${settings.attemptsKeepDays} days × ${C.postgresBytesPerAttempt.value} bytes`,
    sources: ['postgresBytesPerAttempt'],
  });
  add({
    section: 'postgres',
    name: 'total_bytes',
    label: `Postgres after ${months} month${months === 1 ? '' : 's'}`,
    value: Math.round(insightBytes + months * (runBytesPerMonth + deliveryBytesPerMonth) + attemptBytes),
    unit: 'bytes',
    how: `insights + ${months} × (runs + deliveries a month) + attempts`,
    sources: ['postgresBytesPerInsight', 'postgresBytesPerRun', 'postgresBytesPerDelivery', 'postgresBytesPerAttempt'],
  });

  // Redis: the queues' capped events streams, and the delivered jobs kept for a while. Jobs waiting are not counted.
  const streamsBytes = settings.queues * C.redisBytesPerEventsStream.value;
  const keptDeliveries = Math.min(
    settings.completedDeliveriesKept.count,
    (deliveries * settings.completedDeliveriesKept.ageSeconds) / DAY_S,
  );
  add({
    section: 'redis',
    name: 'redis_streams_bytes',
    label: "the queues' events streams (each capped at about 10,000 events)",
    value: Math.round(streamsBytes),
    unit: 'bytes',
    how: `${settings.queues} queues × ${fmt(C.redisBytesPerEventsStream.value)} bytes`,
    sources: ['redisBytesPerEventsStream'],
  });
  add({
    section: 'redis',
    name: 'redis_deliveries_bytes',
    label: `delivered webhook jobs kept (${fmt(settings.completedDeliveriesKept.ageSeconds / 3600)} h, at most ${fmt(settings.completedDeliveriesKept.count)})`,
    value: Math.round(keptDeliveries * C.redisBytesPerDeliveryKept.value),
    unit: 'bytes',
    how: `${fmt(keptDeliveries, 0)} jobs × ${C.redisBytesPerDeliveryKept.value} bytes`,
    sources: ['redisBytesPerDeliveryKept'],
  });
  add({
    section: 'redis',
    name: 'redis_bytes',
    label: "Redis in all, with nothing waiting (not measured: Google's trends-fetch jobs, kept a day with their answers, on live Google)",
    value: Math.round(streamsBytes + keptDeliveries * C.redisBytesPerDeliveryKept.value),
    unit: 'bytes',
    how: 'events streams + delivered jobs kept',
    sources: ['redisBytesPerEventsStream', 'redisBytesPerDeliveryKept'],
  });

  // Paid providers, a day.
  add({
    section: 'paid',
    name: 'dataforseo_usd_per_day',
    label: 'DataForSEO alone (TRENDS_PROVIDER=dataforseo), a day',
    value: Math.round((runs * C.dataforseoUsdPerRun.value + insights * C.dataforseoUsdPerRefreshedInsight.value) * 100) / 100,
    unit: 'USD / day',
    how: `${fmt(runs)} × $${C.dataforseoUsdPerRun.value} + ${fmt(insights)} × $${C.dataforseoUsdPerRefreshedInsight.value}`,
    sources: ['dataforseoUsdPerRun', 'dataforseoUsdPerRefreshedInsight'],
  });
  add({
    section: 'paid',
    name: 'google_and_dataforseo_usd_per_day',
    label: 'Google and DataForSEO (TRENDS_PROVIDER=google,dataforseo), a day; Google routes as above',
    value: Math.round(runs * C.dataforseoBesideGoogleUsdPerRun.value * 100) / 100,
    unit: 'USD / day',
    how: `${fmt(runs)} × $${C.dataforseoBesideGoogleUsdPerRun.value}`,
    sources: ['dataforseoBesideGoogleUsdPerRun'],
  });
  return { demand, settings, planningUtilisation: PLANNING_UTILISATION, figures };
}
