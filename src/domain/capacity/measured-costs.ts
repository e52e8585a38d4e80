// The measured costs a deployment is sized from, in one table: each figure as a
// benchmark printed it, with its unit, the benchmark and the day it ran
// (docs/benchmarks.md has every run). `insights capacity` prints this table and
// docs/capacity.md carries the same rows (a unit test compares them), so a
// figure changes in one place: here, when a benchmark is run again.

export interface MeasuredCost {
  readonly value: number;
  readonly unit: string;
  /** What was measured, and under what conditions. */
  readonly what: string;
  /** The npm script that measured it (`npm run bench:google`). */
  readonly bench: `bench:${string}`;
  /** The day of the run the figure comes from (UTC). */
  readonly date: string;
}

export const MEASURED_COSTS = {
  googleHttpsPerRun: {
    value: 16.92,
    unit: 'HTTPS requests / research run',
    what: 'Google requests a research run makes (12 runs on the loopback Google: explore, widget data, cookie pages, autocomplete and the embed flow)',
    bench: 'bench:google',
    date: '2026-11-27',
  },
  googleEmbedHttpsPerRun: {
    value: 4,
    unit: 'HTTPS requests / research run',
    what: 'of those, the embed flow: 2 embed pages (related queries, related topics) and their 2 data requests',
    bench: 'bench:google',
    date: '2026-11-27',
  },
  googleHttpsPerRefreshedInsight: {
    value: 0.55,
    unit: 'HTTPS requests / insight / refresh',
    what: 'Google requests of the daily refresh per insight (100 insights, groups of up to 5 from one request)',
    bench: 'bench:google',
    date: '2026-11-27',
  },
  googleRunsPerHourPerRoute: {
    value: 35,
    unit: 'research runs / hour / route',
    what: "runs one route completed in an hour under Google's late-2026 limits (12 requests a minute per address, 30-minute blocks), at the shipped pace of 10 a minute",
    bench: 'bench:google',
    date: '2026-11-27',
  },
  googleRequestsPerMinuteLimit: {
    value: 12,
    unit: 'HTTPS requests / minute / address',
    what: "Google's late-2026 limit as the loopback Google simulates it: past it, a 30-minute block",
    bench: 'bench:google',
    date: '2026-11-27',
  },
  dataforseoUsdPerRun: {
    value: 0.138,
    unit: 'USD / research run',
    what: 'DataForSEO alone (8 tasks a run), at $0.009 a Trends task and $0.075 a search-volume task',
    bench: 'bench:providers',
    date: '2026-11-27',
  },
  dataforseoBesideGoogleUsdPerRun: {
    value: 0.075,
    unit: 'USD / research run',
    what: "Google and DataForSEO together: DataForSEO's one search-volume task a run",
    bench: 'bench:providers',
    date: '2026-11-27',
  },
  dataforseoUsdPerRefreshedInsight: {
    value: 0.0018,
    unit: 'USD / insight / refresh',
    what: 'DataForSEO alone: 0.2 tasks per refreshed insight',
    bench: 'bench:providers',
    date: '2026-11-27',
  },
  apiRequestsPerSecondQuiet: {
    value: 8867,
    unit: 'API requests / s / web process',
    what: 'one web process, the slowest of list, detail and trend data (trend data), 50 connections, p99 12 ms, quiet machine',
    bench: 'bench:api',
    date: '2026-11-24',
  },
  apiRequestsPerSecondLoaded: {
    value: 1646,
    unit: 'API requests / s / web process',
    what: 'the same, 2xx answers only, on a machine at load average 12–17 (trend data, the slowest; p99 106 ms)',
    bench: 'bench:api',
    date: '2026-11-28',
  },
  workerStepsPerSecondQuiet: {
    value: 1326,
    unit: 'research steps / s / worker process',
    what: 'one worker process, concurrency 20, synthetic provider (median of 3 rounds, quiet machine)',
    bench: 'bench:flow',
    date: '2026-11-27',
  },
  workerStepsPerSecondLoaded: {
    value: 143,
    unit: 'research steps / s / worker process',
    what: 'the same on a machine at load average 18–21 (the lower of two alternated runs)',
    bench: 'bench:flow',
    date: '2026-11-28',
  },
  refreshesPerSecond: {
    value: 410,
    unit: 'insights refreshed / s / worker process',
    what: '10,000 insights refreshed through the real queue and workers, rate limit off (3.10 ms CPU each, Node + Postgres + Redis)',
    bench: 'bench:ingest',
    date: '2026-11-24',
  },
  deliveriesPerSecond: {
    value: 1018,
    unit: 'webhook deliveries / s / worker process',
    what: "one account's burst of 1,000 insights to a loopback receiver (median of 3 runs, quiet machine)",
    bench: 'bench:webhooks',
    date: '2026-11-28',
  },
  matchesPerInsight: {
    value: 7.89,
    unit: 'deliveries / insight',
    what: 'subscriptions an insight matched among 100,000 (the default of deliveries per research run)',
    bench: 'bench:webhooks',
    date: '2026-11-28',
  },
  postgresBytesPerInsight: {
    value: 34816,
    unit: 'bytes / insight',
    what: 'insights + insight_series + trend_points + forecasts: rows, indexes and TOAST as written by 100 research runs (18,432 after VACUUM FULL)',
    bench: 'bench:storage',
    date: '2026-11-28',
  },
  postgresBytesPerRun: {
    value: 50545,
    unit: 'bytes / research run',
    what: 'research_runs + research_steps (40 steps and their outputs) + idempotency keys + outbox events, as written (45,466 after VACUUM FULL)',
    bench: 'bench:storage',
    date: '2026-11-28',
  },
  postgresBytesPerDelivery: {
    value: 676,
    unit: 'bytes / webhook delivery',
    what: 'webhook_deliveries (800 rows, kept for good: replays read them), as written (379 after VACUUM FULL)',
    bench: 'bench:storage',
    date: '2026-11-28',
  },
  postgresBytesPerAttempt: {
    value: 275,
    unit: 'bytes / delivery attempt',
    what: 'webhook_attempts (805 rows), pruned after WEBHOOK_ATTEMPTS_KEEP_DAYS, as written (173 after VACUUM FULL)',
    bench: 'bench:storage',
    date: '2026-11-28',
  },
  redisBytesPerEventsStream: {
    value: 1047872,
    unit: 'bytes / queue',
    what: "Redis MEMORY USAGE of the research queue's events stream at BullMQ's cap of about 10,000 events (100 runs fill it)",
    bench: 'bench:storage',
    date: '2026-11-28',
  },
  redisBytesPerDeliveryKept: {
    value: 809,
    unit: 'bytes / completed delivery job',
    what: "Redis MEMORY USAGE of the webhooks queue's jobs, completed set and wakes after 800 deliveries, per delivery (its share of the match jobs included)",
    bench: 'bench:storage',
    date: '2026-11-28',
  },
} as const satisfies Record<string, MeasuredCost>;

export type CostName = keyof typeof MEASURED_COSTS;

/** How a figure names where it came from: "bench:google, 2026-11-27". */
export const sourceOf = (name: CostName): string => `${MEASURED_COSTS[name].bench}, ${MEASURED_COSTS[name].date}`;

/** The table as docs/capacity.md carries it (a unit test compares the two). */
export function measuredCostsMarkdown(): string {
  const rows = Object.entries(MEASURED_COSTS).map(
    ([name, c]) =>
      `| \`${name}\` | ${c.value.toLocaleString('en-US', { maximumFractionDigits: 4 })} | ${c.unit} | ${c.what} | \`${c.bench}\` | ${c.date} |`,
  );
  return ['| figure | value | unit | what was measured | source | measured |', '|---|---|---|---|---|---|', ...rows].join('\n');
}
