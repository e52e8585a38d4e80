// What a research step is: its name, what it hands the steps after it, and
// what it gets to run with. steps.ts defines the 40 steps against this, and
// research-result.ts (aggregate's writes) reads their outputs through it, so the
// two never import each other.
//
// StepOutputs is read back as well as written: a step reads what earlier steps
// recorded, possibly under an older version of the code (a run in flight across
// a deploy, a run re-shown by `insights runs show`). Where a step's output has
// changed shape, its entry is the union of the shapes still in Postgres, and the
// readers tell them apart; the current shape is the first member.
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import type { Category, Source } from '../domain/catalog.js';
import type { Forecast } from '../domain/forecast/forecaster.js';
import type { Outlook } from '../domain/forecast/outlook.js';
import type { CategoryChoice } from '../domain/research/category.js';
import type { GeographicReach, PlaceInterest } from '../domain/research/geography.js';
import type { FamilyShare, ModifierFamily } from '../domain/research/modifier-evidence.js';
import type { TermShare } from '../domain/research/query-signals.js';
import type { VolumeOutput } from '../domain/research/search-volume.js';
import type { RelatedServed } from '../domain/research/served-evidence.js';
import type { TrajectoryReading } from '../domain/research/series-analysis.js';
import type { BreadthInput, SignalInput, WhitespaceInput } from '../domain/scoring/dimension-scores.js';
import type { Dimension, DimensionScore, DimensionScores } from '../domain/scoring/dimensions.js';
import type { ComparableScale } from '../domain/trends/provider-profile.js';
import type { OverallScore } from '../domain/scoring/overall.js';
import type { RankedItem, RegionResolution, Timeframe, TrendsResponse } from '../domain/trends/answers.js';
import type { AutocompleteResult, ComparisonResult, Measurement, ModifierOutcome, Topic, TrendsPlan } from './trends-plan.js';
import type { MeasuredCandidate, PhraseCandidate } from '../domain/research/phrase-choice.js';

export { STEP_COUNT, STEP_NAMES, type StepName } from '../domain/research/step-names.js';
import { chainId, STEP_NAME_PATTERN, type StepName } from '../domain/research/step-names.js';

type Provenance = TrendsResponse['provenance'] | null;

/** Steps interest_30d to interest_5y: one interest series of the primary phrase. */
export interface SeriesOutput {
  keyword: string;
  timeframe: Timeframe;
  /** Set when the series was cut from a longer answer rather than asked for. */
  derived_from?: string;
  dates: string[];
  values: number[];
  partial: boolean[];
  has_data: boolean[];
  provenance: Provenance;
}

/** Steps related_queries_top to related_topics_rising: one related list of the primary phrase. */
export interface RelatedOutput {
  keyword: string;
  /** What Google served (RELATED_SERVED). Runs recorded before it was kept read as listed. */
  served?: RelatedServed;
  /** Why nothing was read (not recorded, failed). */
  reason?: string;
  items: Array<Pick<RankedItem, 'label' | 'value' | 'breakout' | 'formattedValue'> & { mid?: string }>;
  provenance: Provenance;
}

/** Steps interest_by_country and interest_by_city: the phrase's map, by country or city. */
export interface MapOutput {
  keyword: string;
  /** Set when no configured provider draws this map: why (places is then empty). */
  unavailable?: string;
  /** The anchor the map was drawn against, or null for the phrase's own map. */
  compared_with: string | null;
  reason: string;
  resolution: RegionResolution;
  places: PlaceInterest[];
  without_data: number;
  provenance: Provenance;
}

/** What steps demand_breadth to competition_signals record of the modifier comparison (one request for the four). */
export interface ModifierComparison {
  outcome: ModifierOutcome;
  /** What was asked: the phrase, then one OR-item per family. */
  keywords: string[];
  reason?: string;
  shares?: Partial<Record<ModifierFamily, FamilyShare>>;
  provenance: Provenance;
}

/** The comparison as steps pain_signals to competition_signals record it: each keeps its own family's share, not all of them. */
export type AskedComparison = Omit<ModifierComparison, 'shares'>;

/** Steps pain_signals and buyer_intent: one family's reading from each source. */
export interface SignalOutput extends SignalInput {
  modifier_comparison: AskedComparison;
}

/** Steps demand_breadth, pain_signals and buyer_intent and competition_signals as runs recorded them before the modifier comparison: related queries only. */
export interface ListsOnlyBreadth {
  queries: number;
  topics: number;
  vocabulary: number;
}
export interface ListsOnlyCompetition {
  comparisons: TermShare;
  brands: TermShare;
}

export interface SeriesCoverage {
  points: number;
  dropped_partial: boolean;
  missing: number;
  zero_share: number;
}

/** Step aggregate: the insight's scores, before aggregate's commit writes them. */
export interface AggregateOutput {
  overall: OverallScore;
  dimensions: DimensionScores;
  category: Category;
  summary: string;
}

type ScoreSteps = { [D in Dimension as `score_${D}`]: DimensionScore };

/** What each step hands the steps after it (and records): ctx.out(name) has this type. */
export interface StepOutputs extends ScoreSteps {
  normalize_idea: { text: string; key: string; words: string[] };
  /** `candidates`: absent on runs recorded before step extract_phrases weighed them. */
  extract_phrases: { phrases: string[]; candidates?: PhraseCandidate[] };
  autocomplete_phrases: AutocompleteResult;
  /** `candidates`, `measured`: absent on runs recorded before step choose_primary measured its candidates. */
  choose_primary: {
    primary: string;
    secondary: string[];
    reason: string;
    candidates?: MeasuredCandidate[];
    measured?: (Measurement & { anchor: string }) | null;
    /** The chosen phrase's autocomplete topics, when step autocomplete_phrases had not asked for it. */
    primary_topics?: Topic[];
  };
  classify_category: CategoryChoice;
  detect_duplicate: {
    existing_insight_id: string | null;
    matched_on: 'idea' | 'primary_keyword' | null;
    /** The other idea, when only the primary phrase matched. */
    similar_idea?: string;
    action: string;
  };
  interest_30d: SeriesOutput;
  interest_90d: SeriesOutput;
  interest_12m: SeriesOutput;
  interest_5y: SeriesOutput;
  compare_secondary: ComparisonResult['secondary'] | { keywords: string[]; means: Record<string, null>; note: string };
  /** `volume`: absent on runs recorded before step compare_anchor asked for absolute figures. */
  /**
   * `anchor`: null when the series provider keeps one scale across requests (`scale`, the Trends API's
   * searchInterest): then phraseMean and anchorMean are the phrase's mean and the scale's reference level, and no
   * anchor term was asked.
   */
  compare_anchor: ComparisonResult['anchor'] & { anchor: string | null; scale?: ComparableScale; volume?: VolumeOutput };
  related_queries_top: RelatedOutput;
  related_queries_rising: RelatedOutput;
  related_topics_top: RelatedOutput;
  related_topics_rising: RelatedOutput;
  interest_by_country: MapOutput;
  interest_by_city: MapOutput;
  clean_series: Record<'interest_30d' | 'interest_90d' | 'interest_12m' | 'interest_5y', SeriesCoverage>;
  growth: { growth_30d: number | null; growth_90d: number | null };
  acceleration: { acceleration_90d: number | null };
  trajectory: {
    five_year: TrajectoryReading | null;
    /** Weeks read, for the years the durability score states. */
    points: number;
  };
  seasonality: {
    weekly_acf_lag7: number | null;
    yearly_acf_lag52: number | null;
    /** The yearly autocorrelation once the 5 years' trend is removed. Runs recorded before it was kept read as unknown. */
    yearly_seasonality?: number | null;
  };
  volatility: {
    days_90: { cv: number; spikiness: number; fad: boolean } | null;
    years_5: { cv: number; spikiness: number; fad: boolean } | null;
  };
  breakout: {
    /** What Google served for rising queries. Runs recorded before it was kept read as listed. */
    rising_queries?: RelatedServed;
    breakout_queries: string[];
    series: { zScore: number; breakout: boolean } | null;
  };
  demand_breadth: (BreadthInput & { modifier_comparison: ModifierComparison }) | ListsOnlyBreadth;
  pain_signals: SignalOutput | TermShare;
  buyer_intent: SignalOutput | TermShare;
  competition_signals: (WhitespaceInput & { modifier_comparison: AskedComparison }) | ListsOnlyCompetition;
  geographic_reach: GeographicReach;
  /** `outlook`: the 3-12 month outlook from the 5 years (absent on runs recorded before it). */
  forecast: Forecast & { outlook?: Outlook };
  aggregate: AggregateOutput;
}

export interface RunInfo {
  id: string;
  idea: string;
  hints: string[];
  source: Source;
  /** The account whose private insight the run makes; null: a public one. */
  ownerAccountId: string | null;
  /** Of a public run: the account that published it (it owns the insight); null: the operator's. */
  publisherAccountId?: string | null;
  /** The provider list the run researches with (google, google+dataforseo, replay, synthetic): the insight keeps it. */
  provider?: string;
  /** The search Google listed as trending that discovery started the run for: its primary phrase as it is. */
  trending?: string;
}

export interface StepContext {
  run: RunInfo;
  /** The recorded output of an earlier step. */
  out<N extends StepName>(name: N): StepOutputs[N];
  /**
   * How this run asks Google Trends (one explore for several answers, derived windows; see trends-plan.ts): the
   * requests built for the configured request plan (TRENDS_REQUEST_PLAN), not an account's plan.
   */
  requests: TrendsPlan;
  /** An insight with the same idea key, else one on the same primary keyword (not demo). */
  findExistingInsight(ideaKey: string, primaryKeyword: string): Promise<{ id: string; idea: string; sameIdea: boolean } | undefined>;
  anchorTerm: string;
  /** The series provider's scale across requests (the Trends API's searchInterest): then no step asks anchorTerm. */
  scale?: ComparableScale;
  /** The market the run asks about: a country code, '' worldwide. */
  geo: string;
}

export interface CommitResult {
  insightId: string;
  /** The outbox event written with the insight (announced to webhook matching after commit). */
  eventId: string;
}

/**
 * One step. Without a name it is a step as the job runner sees it: its
 * output is one of the steps' outputs, and its summarize and commit take what
 * its own run returned.
 */
export interface StepDefinition<N extends StepName = StepName> {
  name: N;
  run(ctx: StepContext): Promise<StepOutputs[N]>;
  /** One line for `runs show` and the API. */
  summarize(output: StepOutputs[N]): string;
  /** Writes that must commit with the step's "done" mark (only aggregate has them). */
  commit?(trx: Transaction<Database>, ctx: StepContext, output: StepOutputs[N]): Promise<CommitResult>;
  /** What the worker measures of the output once it is recorded (forecast: its backtest's MASE); the runner knows no step by name. */
  observe?(output: StepOutputs[N]): void;
}

/** A step definition whose name decides its output type (so each of STEPS is checked against its entry). */
export type NamedStep = { [N in StepName]: StepDefinition<N> }[StepName];

/** The output of some step (what the job runner records). */
export type StepOutput = StepOutputs[StepName];

/** A chain of steps in order: what a run started on it runs, whatever chain is current later. */
export interface StepChain {
  /** chainId of the names in order: what research_runs.chain records. */
  id: string;
  steps: readonly StepDefinition[];
}

/** The chains this code can run: today's, and the older ones runs in flight may still be on. */
export interface StepChains {
  /** The chain new runs start on. */
  current: StepChain;
  /** The chain a run recorded, or undefined when this code no longer carries it. */
  find(id: string): StepChain | undefined;
}

/** Checks each chain (names well formed, none twice) and keys them by id; the last is current. */
export function stepChains(chains: readonly (readonly StepDefinition[])[]): StepChains {
  if (chains.length === 0) throw new Error('at least one chain of research steps is needed');
  const byId = new Map<string, StepChain>();
  for (const steps of chains) {
    const names = steps.map((s) => s.name as string);
    for (const name of names) if (!STEP_NAME_PATTERN.test(name)) throw new Error(`research step name "${name}" is not snake_case`);
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice) throw new Error(`research step "${twice}" appears twice in one chain`);
    const chain = { id: chainId(names), steps };
    byId.set(chain.id, chain);
  }
  const current = byId.get(chainId(chains.at(-1)!.map((s) => s.name)))!;
  return { current, find: (id) => byId.get(id) };
}
