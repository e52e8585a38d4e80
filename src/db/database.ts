// The table map: what kysely knows about our tables. Nothing else lives here.
import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { Category, InsightStatus, Source } from '../domain/catalog.js';
import type { Plan } from '../domain/quota.js';
import type { DimensionScores } from '../domain/scoring/dimensions.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface InsightsTable {
  id: string;
  /** Normalised idea text: researching the same idea again updates this row. */
  idea_key: string;
  title: string;
  idea: string;
  primary_keyword: string;
  keywords: JSONColumnType<string[]>;
  category: Category;
  source: Source;
  overall_score: number;
  confidence: number;
  dimensions: JSONColumnType<DimensionScores>;
  /** Each dimension's score alone ({ demand: 0.4, … }), kept in step with `dimensions` by upsertInsight. */
  dimension_scores: JSONColumnType<Record<string, number | null>>;
  summary: string;
  status: InsightStatus;
  /** Popularity relative to the research anchor; null until measured (see domain/trends/batching.ts). */
  interest_level: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface TrendPointsTable {
  insight_id: string;
  date: string; // YYYY-MM-DD, returned as text (see connection.ts)
  value: number;
  is_partial: boolean;
  fetched_at: Timestamp;
}

export interface ForecastsTable {
  insight_id: string;
  model: string | null;
  generated_at: Timestamp;
  horizon: number;
  withheld: boolean;
  reason: string | null;
  points: JSONColumnType<unknown[]>;
  backtest: ColumnType<Record<string, number | null> | null, string | null, string | null>;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  plan: Plan;
  display_prefix: string;
  key_hash: string;
  created_at: Generated<Date>;
  revoked_at: Date | null;
}

export const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface ResearchRunsTable {
  id: string;
  idea: string;
  idea_key: string;
  keyword_hints: JSONColumnType<string[]>;
  provider: string;
  source: Source;
  /** 'cli' (an operator) or 'discovery'. */
  started_by: ColumnType<string, string | undefined, string>;
  status: RunStatus;
  next_step: Generated<number>;
  waiting_reason: string | null;
  insight_id: string | null;
  error: string | null;
  failed_step: number | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  finished_at: Date | null;
}

export interface ResearchStepsTable {
  run_id: string;
  step: number;
  name: string;
  status: 'done' | 'failed';
  input_hash: string | null;
  output: ColumnType<unknown, string | null, string | null>;
  summary: string | null;
  attempts: Generated<number>;
  duration_ms: number | null;
  error: string | null;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface OutboxEventsTable {
  id: string;
  type: string;
  insight_id: string | null;
  payload: JSONColumnType<Record<string, unknown>>;
  created_at: Generated<Date>;
  relayed_at: Date | null;
}

export interface WebhookSubscriptionsTable {
  id: string;
  url: string;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  min_score: number | null;
  categories: JSONColumnType<string[]>;
  sources: JSONColumnType<string[]>;
  keywords: JSONColumnType<string[]>;
  event_types: JSONColumnType<string[]>;
  state: 'enabled' | 'disabled';
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  subscription_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Generated<Date>;
  finished_at: Date | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  at: Generated<Date>;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
}

export interface Database {
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  research_runs: ResearchRunsTable;
  research_steps: ResearchStepsTable;
  outbox_events: OutboxEventsTable;
  insights: InsightsTable;
  trend_points: TrendPointsTable;
  forecasts: ForecastsTable;
  api_keys: ApiKeysTable;
}
