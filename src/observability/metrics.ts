// Prometheus metrics: one registry per process, every instrument declared here.
import type { Queue } from 'bullmq';
import client from 'prom-client';
import { SecretMatcher } from '../domain/constant-time.js';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

export const httpDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});
export const quotaRejections = new client.Counter({
  name: 'api_quota_rejections_total',
  help: "Requests refused because the account spent its plan's daily quota, by plan",
  labelNames: ['plan'] as const,
  registers: [registry],
});
export const apiRequestsByPlan = new client.Counter({
  name: 'api_requests_total',
  help: "Requests that passed the API key and quota check, by the account's plan",
  labelNames: ['plan'] as const,
  registers: [registry],
});
export const jobDuration = new client.Histogram({
  name: 'job_duration_seconds',
  help: 'Processing time of completed jobs, by queue and job name',
  labelNames: ['queue', 'job'] as const,
  buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60],
  registers: [registry],
});
export const jobFailures = new client.Counter({
  name: 'job_failures_total',
  help: 'Failed job attempts, by queue and job name',
  labelNames: ['queue', 'job'] as const,
  registers: [registry],
});
export const trendsRequests = new client.Counter({
  name: 'google_trends_requests_total',
  help: 'Trends jobs (one request of a research step or refresh, one or more HTTPS exchanges) by egress route and outcome (served, blocked, over_quota, refused, changed_shape, error)',
  labelNames: ['outcome', 'route'] as const,
  registers: [registry],
});
export const googleAnswers = new client.Counter({
  name: 'google_trends_answers_total',
  help: 'HTTPS exchanges with Google by kind (home_page, cookie_page, explore, multiline, comparedgeo, relatedsearches, embed_page, embed_relatedsearches, autocomplete, trending_rss, trending_rpc, trending_page) and how Google answered (served, empty, no_data, blocked, over_quota, refused, changed_shape, error)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
});
export const googleHttpsByFamily = new client.Counter({
  name: 'google_trends_https_total',
  help: 'HTTPS requests to Google by endpoint family (explore, widgetdata, autocomplete, embed, trending, page: the cookie pages) and purpose (research, background: the refresh and discovery). Divided by research_runs_succeeded_total or refresh_insights_written_total: requests per research run or per refreshed insight',
  labelNames: ['family', 'purpose'] as const,
  registers: [registry],
});
export const researchRunsSucceeded = new client.Counter({
  name: 'research_runs_succeeded_total',
  help: 'Research runs that finished with an insight (the denominator of Google requests per research run)',
  registers: [registry],
});
export const refreshInsightsWritten = new client.Counter({
  name: 'refresh_insights_written_total',
  help: 'Insights whose series the refresh wrote (the denominator of Google requests per refreshed insight)',
  registers: [registry],
});
export const trendingReads = new client.Counter({
  name: 'discovery_trending_reads_total',
  help: "Discovery's reads of Google's trending searches per country, by provider and the road that served (rss, rpc: the Trending Now RPC, page: the /trending page; none: no road served)",
  labelNames: ['provider', 'road'] as const,
  registers: [registry],
});
export const providerRequests = new client.Counter({
  name: 'trends_provider_requests_total',
  help: 'Requests to a paid search-data provider, by provider, endpoint (explore, searchVolume), purpose (research, background) and outcome (answered, cached, refused, account, paced, unavailable)',
  labelNames: ['provider', 'endpoint', 'purpose', 'outcome'] as const,
  registers: [registry],
});
export const providerCost = new client.Counter({
  name: 'trends_provider_cost_usd_total',
  help: 'What a paid search-data provider billed, in US dollars, by provider and purpose (research, background: the refresh and discovery)',
  labelNames: ['provider', 'purpose'] as const,
  registers: [registry],
});
export const providerAccountProblem = new client.Gauge({
  name: 'trends_provider_account_problem',
  help: 'A paid provider refuses the account (1) until an answer comes again (0), by provider and problem (credentials, balance, configuration)',
  labelNames: ['provider', 'problem'] as const,
  registers: [registry],
});
export const googleBlocks = new client.Counter({
  name: 'google_trends_blocks_total',
  help: "Google's blocks of an egress route by how they came (sorry_302, too_many_429, forbidden_403, unusual_traffic), and whether they asked for a wait (Retry-After)",
  labelNames: ['route', 'kind', 'retry_after'] as const,
  registers: [registry],
});
export const googleUserTypes = new client.Counter({
  name: 'google_trends_user_type_total',
  help: 'Answers whose token labelled the client (userConfig.userType: USER_TYPE_SCRAPER, USER_TYPE_LEGIT_USER, USER_TYPE_EMBED, USER_TYPE_EMBED_OVER_QUOTA …), by egress route and label',
  labelNames: ['route', 'user_type'] as const,
  registers: [registry],
});
export const googleAnswerSeconds = new client.Histogram({
  name: 'google_trends_answer_seconds',
  help: 'Latency of HTTPS exchanges with Google, by kind',
  labelNames: ['kind'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
  registers: [registry],
});
export const webhookDeliveries = new client.Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome (delivered, retry, gone, failed, blocked)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
export const webhookLatency = new client.Histogram({
  name: 'webhook_delivery_latency_seconds',
  help: 'Time from sending a webhook to the receiver’s answer',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
  registers: [registry],
});
export const forecastMase = new client.Histogram({
  name: 'forecast_backtest_mase',
  help: 'Backtest MASE of each fitted forecast (below 1 beats seasonal naive on that series)',
  buckets: [0.25, 0.5, 0.75, 0.9, 1, 1.25, 1.5, 2, 3],
  registers: [registry],
});

const NO_RESPONSE_CACHE = () => ({ bytes: 0, entries: 0 });
let responseCacheSize: () => { bytes: number; entries: number } = NO_RESPONSE_CACHE;
new client.Gauge({
  name: 'api_response_cache_bytes',
  help: 'Bytes held by the web process’s response cache (bounded by API_CACHE_MAX_MB)',
  registers: [registry],
  collect() {
    this.set(responseCacheSize().bytes);
  },
});
new client.Gauge({
  name: 'api_response_cache_entries',
  help: 'Responses held by the web process’s response cache',
  registers: [registry],
  collect() {
    this.set(responseCacheSize().entries);
  },
});
/** The response cache whose size /metrics reports, until the returned function lets go of it (the app closed). */
export function reportResponseCache(size: () => { bytes: number; entries: number }): () => void {
  responseCacheSize = size;
  return () => {
    if (responseCacheSize === size) responseCacheSize = NO_RESPONSE_CACHE;
  };
}

// Google's budget, read at scrape time (see runtime/budget.ts).
interface BudgetFigures {
  routes: Array<{
    route: string;
    requests: number;
    requestsLastHour: number;
    answers: number;
    blocked: number;
    blocksByKind: Record<string, number>;
    embedRequests: number;
    overQuota: number;
    embedWaitMs: number;
    userType: string | null;
    state: string;
    stateForMs: number;
  }>;
  requestsPerHourPerRoute: number;
  researchRunsWaiting: number;
  refresh: { requests: number; minutesNeeded: number; minutesAvailable: number; fits: boolean };
  check: {
    checkedAt: string;
    kinds: Array<{ kind: string; outcome: string; broken: boolean }>;
    userType: { explore: string | null; embed: string | null };
  } | null;
}
let budgetSource: (() => Promise<BudgetFigures>) | undefined;
let budgetScrape: Promise<BudgetFigures | undefined> | undefined;
/** One read per scrape, shared by every budget gauge. */
function budgetNow(): Promise<BudgetFigures | undefined> {
  budgetScrape ??= (budgetSource?.() ?? Promise.resolve(undefined))
    .catch(() => undefined)
    .finally(() => setImmediate(() => (budgetScrape = undefined)));
  return budgetScrape;
}
const budgetGauge = (
  name: string,
  help: string,
  read: (b: BudgetFigures, set: (value: number, labels?: Record<string, string>) => void) => void,
  labelNames: string[] = [],
) =>
  new client.Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      const b = await budgetNow();
      if (b) read(b, (value, labels) => (labels === undefined ? this.set(value) : this.set(labels, value)));
    },
  });
budgetGauge(
  'google_trends_route_requests_last_hour',
  'HTTPS requests sent to Google in the last 60 minutes per egress route',
  (b, set) => b.routes.forEach((r) => set(r.requestsLastHour, { route: r.route })),
  ['route'],
);
budgetGauge(
  'google_trends_route_requests_per_hour_allowed',
  'HTTPS requests per hour each egress route may send (TRENDS_REQUESTS_PER_MINUTE × 60; 0: not paced)',
  (b, set) => set(b.requestsPerHourPerRoute),
);
budgetGauge(
  'google_trends_route_requests_today',
  'HTTPS requests sent to Google today (UTC) per egress route',
  (b, set) => b.routes.forEach((r) => set(r.requests, { route: r.route })),
  ['route'],
);
budgetGauge(
  'google_trends_route_answers_today',
  'Trends jobs Google answered today (UTC) per egress route',
  (b, set) => b.routes.forEach((r) => set(r.answers, { route: r.route })),
  ['route'],
);
budgetGauge(
  'google_trends_route_blocked_today',
  "Google's blocks (302 to its sorry page, a 429 page, a 403, an unusual-traffic page) today (UTC) per egress route",
  (b, set) => b.routes.forEach((r) => set(r.blocked, { route: r.route })),
  ['route'],
);
budgetGauge(
  'google_trends_route_blocks_today',
  "Google's blocks today (UTC) per egress route and how they came (sorry_302, too_many_429, forbidden_403, unusual_traffic)",
  (b, set) => b.routes.forEach((r) => Object.entries(r.blocksByKind).forEach(([kind, n]) => set(n, { route: r.route, kind }))),
  ['route', 'kind'],
);
budgetGauge(
  'google_trends_route_embed_requests_today',
  'Embed pages (related lists) sent to Google today (UTC) per egress route',
  (b, set) => b.routes.forEach((r) => set(r.embedRequests, { route: r.route })),
  ['route'],
);
budgetGauge(
  'google_trends_route_embed_over_quota_today',
  'Embed tokens over the embed quota (USER_TYPE_EMBED_OVER_QUOTA) today (UTC) per egress route',
  (b, set) => b.routes.forEach((r) => set(r.overQuota, { route: r.route })),
  ['route'],
);
budgetGauge(
  'google_trends_route_embed_paused_seconds',
  "Seconds until an egress route's embed pages may ask again after an over-quota token (0: open)",
  (b, set) => b.routes.forEach((r) => set(r.embedWaitMs / 1000, { route: r.route })),
  ['route'],
);
budgetGauge(
  'google_trends_route_user_type',
  "How Google labelled each egress route's client in its latest token: 1 for the label (userConfig.userType)",
  (b, set) => b.routes.forEach((r) => (r.userType ? set(1, { route: r.route, user_type: r.userType }) : undefined)),
  ['route', 'user_type'],
);
budgetGauge(
  'google_trends_route_state',
  "Each egress route's state: 1 for the one it is in (open, cooling, probing, refused)",
  (b, set) => b.routes.forEach((r) => set(1, { route: r.route, state: r.state })),
  ['route', 'state'],
);
budgetGauge(
  'google_trends_route_paused_seconds',
  'Seconds until a cooling or refused egress route may ask Google again (0: open or probing)',
  (b, set) => b.routes.forEach((r) => set(r.stateForMs / 1000, { route: r.route })),
  ['route'],
);
budgetGauge(
  'google_trends_check_timestamp_seconds',
  'When the scheduled Google canary (GOOGLE_CHECK_CRON) last ran, in Unix seconds (absent: none this week)',
  (b, set) => (b.check ? set(Date.parse(b.check.checkedAt) / 1000) : undefined),
);
budgetGauge(
  'google_trends_check_ok',
  "The scheduled Google canary's verdict per kind: 1 answered as expected, 0 broken",
  (b, set) => b.check?.kinds.forEach((k) => set(k.broken ? 0 : 1, { kind: k.kind, outcome: k.outcome })),
  ['kind', 'outcome'],
);
budgetGauge(
  'google_trends_check_user_type',
  "How Google labelled the client in the canary's tokens: 1 for the label, per token kind (explore, embed)",
  (b, set) => {
    for (const [token, label] of Object.entries(b.check?.userType ?? {})) if (label) set(1, { token, user_type: label });
  },
  ['token', 'user_type'],
);
budgetGauge('google_trends_research_runs_waiting', 'Research runs on live Google not finished yet', (b, set) => set(b.researchRunsWaiting));
budgetGauge(
  'google_trends_refresh_requests',
  'HTTPS requests the daily refresh needs (an explore and a series per group of up to 5 insights)',
  (b, set) => set(b.refresh.requests),
);
budgetGauge('google_trends_refresh_minutes_needed', 'Minutes the daily refresh needs at the current request rate', (b, set) =>
  set(b.refresh.minutesNeeded),
);
budgetGauge('google_trends_refresh_minutes_available', 'Minutes between two refreshes (REFRESH_CRON)', (b, set) =>
  set(b.refresh.minutesAvailable),
);
budgetGauge('google_trends_refresh_fits', '1 when the daily refresh finishes before the next one starts, else 0', (b, set) =>
  set(b.refresh.fits ? 1 : 0),
);

/** Where /metrics reads Google's budget from (the web process and a worker's metrics server). */
export function reportBudget(source: () => Promise<BudgetFigures>): void {
  budgetSource = source;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized', 'waiting-children'] as const;
let queuesForDepth: Queue[] = [];
new client.Gauge({
  name: 'queue_jobs',
  help: 'Jobs per queue and state (read at scrape time)',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const queue of queuesForDepth) {
      const counts = await queue.getJobCounts(...QUEUE_STATES);
      for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
    }
  },
});

/** The queues whose depth /metrics reports (the process's own, once opened). */
export function reportQueueDepth(queues: Queue[]): void {
  queuesForDepth = queues;
}

/** ADMIN_TOKEN as "Bearer <token>" or HTTP Basic with the token as password (for browsers). */
export function isAdmin(authorization: string | undefined, token: string | undefined): boolean {
  if (!token || !authorization) return false;
  let presented: string | undefined;
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (bearer) presented = bearer[1];
  const basic = /^Basic\s+(\S+)$/i.exec(authorization);
  if (basic) presented = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').slice(1).join(':');
  if (presented === undefined) return false;
  let matcher = adminMatchers.get(token);
  if (!matcher) adminMatchers.set(token, (matcher = new SecretMatcher(token)));
  return matcher.matches(presented);
}
/** One per token (a process has one ADMIN_TOKEN; tests may use a few). */
const adminMatchers = new Map<string, SecretMatcher>();
