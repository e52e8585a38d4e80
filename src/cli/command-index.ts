// The one-line description of every top-level `insights` command, in the
// order `insights --help` lists them. Written once: the help listing reads it
// without loading any command's module, and each module describes its own
// top-level commands from it.
export const COMMAND_DESCRIPTIONS = {
  migrate: 'Bring the database schema up to date (idempotent)',
  release: 'Release phase: migrate and upsert the job schedulers (idempotent)',
  seed: 'Load demo insights from real Google Trends series',
  accounts: 'Accounts own API keys, a plan and its daily quota',
  keys: 'Manage API keys (shown once, stored only as a hash)',
  research: 'Research an idea: a 40-step run that ends in a scored insight',
  runs: 'Inspect and resume research runs',
  ingest: 'Trend ingestion',
  schedules: 'The job schedulers (cron, UTC) and their next run',
  forecast: 'Forecast series in batch: JSONL in ({"id","points":[{"date","value"}],"horizon"?}), JSONL out, same order',
  'score-series':
    'Momentum and trend class of series in batch: JSONL in ({"id","points":[{"date","value"}],"points_90d"?}), JSONL out ({"id","momentum","trend_class","model"}), same order',
  show: 'An insight: scores, the 30-day series and the 7-day forecast as sparklines',
  webhooks: 'Webhook subscriptions, deliveries and replays (clients manage their own through /api/webhooks)',
  budget:
    "Google Trends' request budget: HTTPS requests per egress route in the last hour and today, each route's state, research waiting, and whether the daily refresh fits",
  doctor: 'Where things are: Postgres (and how far its replica is behind), Redis, and which Redis shard holds which keys',
  google: 'Google Trends itself, as it answers now',
  mcp: 'The MCP server for AI assistants over stdio, talking to a running service (INSIGHTS_URL, INSIGHTS_KEY; docs/mcp.md)',
  evidence: 'Evidence for validating the pain and intent readings (docs/research.md, "Validating pain and intent")',
  capacity:
    'What a deployment needs for a demand (research runs a day, API requests a second, insights): egress routes, web and worker processes, Postgres and Redis, each figure from a named benchmark (docs/capacity.md)',
} as const satisfies Record<string, string>;

export type CommandName = keyof typeof COMMAND_DESCRIPTIONS;

export const describeCommand = (name: CommandName): string => COMMAND_DESCRIPTIONS[name];
