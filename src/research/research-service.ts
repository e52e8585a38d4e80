// Research on demand: what an API client (and the operator's CLI) does with
// research runs, in one place. Submitting validates the idea and the market,
// answers with a recent insight of the same idea and market where there is one
// (unless asked to refresh), joins a run of the account already under way for
// it, honours an Idempotency-Key, and otherwise spends one run of the
// account's daily allowance and records the run in one transaction, then
// enqueues its first step (the sweeper enqueues it if this process dies first).
import type { Kysely } from 'kysely';
import type { Config, TrendsPlanName } from '../config.js';
import { kindOfProviders, seriesProviderOf } from '../providers/registry.js';
import type { Db } from '../db/connection.js';
import type { Database, ResearchVisibility, RunStatus } from '../db/database.js';
import { SOURCES } from '../domain/catalog.js';
import { allowanceState, type AllowanceState, type ResearchAllowance } from '../domain/research/allowance.js';
import { languageProblem, marketProblem } from '../domain/research/market.js';
import { stripInvisible, validateIdea } from '../domain/research/idea.js';
import { choosePrimary, measuredPhrases, phraseCandidates } from '../domain/research/phrase-choice.js';
import { failureKind, publicFailure } from '../domain/public-error.js';
import type { ReplayCoverage } from '../providers/replay/provider.js';
import type { Plan } from '../domain/quota.js';
import { Refusal, secondsUntil } from '../domain/refusal.js';
import { findRecentInsightForIdea, type InsightRow } from '../insights/insight.repository.js';
import {
  cancelRun,
  countRunsAhead,
  findAccountRun,
  findLiveAccountRun,
  bindIdempotencyKey,
  findRunByIdempotencyKey,
  releaseOldIdempotencyKey,
  latestEndedRunAsking,
  listAccountRuns,
  medianRunMs,
  type AccountRunsPage,
} from './account-runs.repository.js';
import { refundResearchRun, researchRunsRefunded, researchRunsSpent, spendResearchRun } from './allowance.repository.js';
import { currentTraceparent, inSpan, linkTo, tracingEnabled } from '../observability/tracing.js';
import type { StepQueue } from './step-queue.js';
import { checkIdea, InvalidIdeaError, startRun } from './start-run.js';
import { createRun, type RunRow } from './run.repository.js';

// What research on demand refuses with: each a Refusal (domain/refusal.ts) of its problem kind, so the API and the
// account pages answer it with one status and the same headers.

/** The research allowance spent (by a submission or a comparison): asking again may succeed once it resets. */
export class ResearchAllowanceSpentError extends Refusal {
  constructor(
    readonly state: AllowanceState,
    /** The clock Retry-After counts from: the answer's, not the service's (a test's clock may be another day). */
    now = Date.now(),
  ) {
    super(
      'researchAllowanceExceeded',
      `Your account has started its ${state.limit} research run${state.limit === 1 ? '' : 's'} for today (UTC); the allowance resets at ${state.resetsAt.toISOString()}.`,
      { retryAfterSeconds: secondsUntil(state.resetsAt, now) },
    );
  }
}

export class IdempotencyKeyReusedError extends Refusal {
  constructor(detail: string) {
    super('idempotencyKeyReused', detail);
  }
}

/**
 * The configured data can never answer this submission (replay has no recording of it): refused before anything is
 * spent, naming (as its parameters) the phrases and markets it can answer.
 */
export class NotAnswerableError extends Refusal {
  constructor(
    message: string,
    /** What it can research: the phrases and the markets ('' worldwide). */
    readonly coverage: ReplayCoverage,
    /** Which of the two the submission missed. */
    readonly missed: { phrase: boolean; market: boolean },
  ) {
    super('notAnswerable', message, {
      params: [
        ...(missed.phrase ? [{ name: 'idea', reason: 'names none of the recorded phrases', allowed: [...coverage.phrases] }] : []),
        ...(missed.market ? [{ name: 'geo', reason: 'is not a recorded market', allowed: [...coverage.markets] }] : []),
      ],
    });
  }
}

export class RunNotCancellableError extends Refusal {
  constructor(readonly run: RunRow) {
    super('runNotCancellable', `Research run ${run.id} is ${run.status}: only a queued, running or waiting run can be cancelled.`);
  }
}

/** Who submits: an account through the API, or an operator (no account, no allowance). */
export type Submitter = { accountId: string; plan: Plan } | { operator: true };

export interface SubmitRequest {
  idea: string;
  /** Search phrases to use (the first becomes the primary); operators' runs only today. */
  hints?: string[];
  /** A country code (US), a region (US-CA) or '' for worldwide; unset: the configured TRENDS_GEO. */
  geo?: string;
  language?: string;
  /** Private (the default for an account): the insight is the account's alone. Operators' runs are public. */
  visibility?: ResearchVisibility;
  /** Research again even if the idea was researched for this market recently. */
  refresh?: boolean;
  idempotency?: { keyHash: string; fingerprint: string };
}

export type Submitted =
  /** A recent insight of the same idea and market answers it; no run, nothing spent. */
  | { kind: 'reused'; insight: InsightRow }
  /**
   * A run: new, or (madeBefore) one made before: the answer to this Idempotency-Key used
   * before (replayed), or the account's run of the idea under way, which this one joined.
   */
  | { kind: 'run'; run: RunRow; madeBefore: boolean; replayed: boolean };

/** Where a run stands in the queue and when it is expected to start and finish. */
export interface RunSchedule {
  /** Runs submitted before it and still to finish (1: it is next). 0 once it has started. */
  position: number;
  estimatedStartAt: Date | null;
  estimatedFinishAt: Date | null;
  /** What the estimate rests on, in words. */
  basis: string;
  /** Set when no time can be promised because the provider is not answering now: why, in words. */
  estimateNote: string | null;
}

/** The latest scheduled canary's verdict (src/providers/google/check.ts, checkVerdict), as the web process reads it from Redis. */
export interface CanaryReading {
  checkedAt: Date;
  verdict: 'ok' | 'unreachable' | 'blocked' | 'changed' | 'stopped' | 'consent';
  detail: string;
}

/** Google not answering now, as the latest evidence says (the canary or the last run asking it), and since when. */
export interface ProviderTrouble {
  state: 'unreachable' | 'blocked';
  at: Date;
  /** What says so, in words. */
  evidence: string;
}

/** Evidence older than this says nothing of Google now. */
export const PROVIDER_EVIDENCE_MS = 60 * 60_000;

export interface ResearchSettings {
  /** The configured providers as a run records them (e.g. "google+dataforseo"). */
  provider: string;
  /** TRENDS_GEO: the market of a run that names none. */
  defaultGeo: string;
  allowance: ResearchAllowance;
  reuseDays: number;
  /** Google's pace: requests a minute per route (0: unpaced), the number of routes, and the request plan. */
  google: { requestsPerMinute: number; routes: number; requestPlan: TrendsPlanName };
  /** When replay answers the series: what it has recordings of. A submission outside them is refused at once. */
  replay?: ReplayCoverage;
}

export class ResearchService {
  constructor(
    private readonly db: Db,
    private readonly stepQueue: StepQueue,
    private readonly settings: ResearchSettings,
    private readonly now: () => Date = () => new Date(),
    /** The latest scheduled Google canary, where the process can read it (Redis); its failure is no evidence. */
    private readonly canary?: () => Promise<CanaryReading | null>,
  ) {}

  /** Checks the request; throws InvalidIdeaError with the reason. */
  private check(request: SubmitRequest): { text: string; key: string; geo: string } {
    // Controls and bidi overrides are refused with their name (checkIdea); what else no one sees (zero-width
    // characters, joiners, the BOM) is dropped, so the title is what was typed, less what could disguise it.
    const refused = validateIdea(request.idea);
    if (refused) throw new InvalidIdeaError(refused);
    const { text, key } = checkIdea(stripInvisible(request.idea), request.hints ?? []);
    const geo = (request.geo ?? this.settings.defaultGeo).trim().toUpperCase();
    const market = marketProblem(geo) ?? this.providerMarketProblem(geo);
    if (market) throw new InvalidIdeaError(`geo ${market}`);
    if (request.language !== undefined) {
      const language = languageProblem(request.language);
      if (language) throw new InvalidIdeaError(`language ${language}`);
    }
    this.checkAnswerable(request.idea, request.hints ?? [], geo);
    return { text, key, geo };
  }

  /**
   * Replay answers only what was recorded: a run's series are asked for one of the idea's
   * phrases in its market, so an idea none of whose phrases was recorded, or a market none was
   * recorded for, would fail at interest_30d (issue 49: "pizza" with geo US, the recordings being
   * worldwide). Refused now, naming what can be researched, before the allowance is charged.
   */
  private checkAnswerable(idea: string, hints: readonly string[], geo: string): void {
    const coverage = this.settings.replay;
    if (!coverage) return;
    const recorded = new Set(coverage.phrases.map((p) => p.toLowerCase()));
    // The phrase the run will research, not any phrase of the idea: choose_primary measures its best four
    // candidates in one comparison, which replay answers only when all four were recorded; otherwise
    // it keeps the first by prior ("pizza dough recipes", not the recorded "pizza", which would
    // research another idea). Accepting an idea whose chosen phrase was not recorded charged a run
    // that failed at interest_30d.
    const candidates = phraseCandidates(stripInvisible(idea), hints);
    const measured = measuredPhrases(candidates);
    const phrase =
      candidates.length > 0 &&
      (recorded.has(choosePrimary(candidates, null).primary.toLowerCase()) ||
        (measured.length > 1 && measured.every((p) => recorded.has(p.toLowerCase()))));
    const market = coverage.markets.includes(geo);
    if (phrase && market) return;
    const phrases = coverage.phrases.map((p) => `"${p}"`).join(', ') || '(none)';
    const markets = coverage.markets.map((m) => (m === '' ? 'worldwide ("")' : m)).join(', ') || '(none)';
    const missed = [
      phrase ? undefined : 'no phrase of this idea',
      market ? undefined : `no market ${geo === '' ? 'worldwide' : `"${geo}"`}`,
    ].filter(Boolean);
    throw new NotAnswerableError(
      `This service answers from recorded Google Trends data (replay), which has ${missed.join(' and ')}: it can research the phrases ${phrases} in the markets ${markets}. Nothing was charged.`,
      coverage,
      { phrase: !phrase, market: !market },
    );
  }

  /** A market the provider of the series cannot ask about (its profile's markets: DataForSEO asks by country): refused now, not at step interest_30d. */
  private providerMarketProblem(geo: string): string | null {
    const series = seriesProviderOf(this.settings.provider);
    if (geo === '' || !series?.markets || series.markets.includes(geo)) return null;
    return `"${geo}" cannot be researched with this service's search data (${series.publicName}, asked by country): use worldwide ("") or one of ${series.markets.join(', ')}`;
  }

  /**
   * A submission is the root span of its run's trace (docs/operations.md, "Traces"), linked to
   * the API request or command that made it; the run records it (research_runs.trace_id) and
   * every step's span is its child. A submission answered with an earlier run or insight ends
   * its span with that outcome: the run it names keeps its own trace.
   */
  async submit(who: Submitter, request: SubmitRequest): Promise<Submitted> {
    if (!tracingEnabled()) return this.submitNow(who, request);
    const links = linkTo(currentTraceparent());
    return inSpan(
      'research.submit',
      {
        root: true,
        links,
        attributes: { 'research.submitter': 'operator' in who ? 'operator' : 'account', 'research.provider': this.settings.provider },
      },
      async (span) => {
        const submitted = await this.submitNow(who, request);
        span?.setAttribute(
          'research.outcome',
          submitted.kind === 'run' ? (submitted.madeBefore ? 'earlier_run' : 'new_run') : submitted.kind,
        );
        if (submitted.kind === 'run') span?.setAttribute('research.run_id', submitted.run.id);
        return submitted;
      },
    );
  }

  private async submitNow(who: Submitter, request: SubmitRequest): Promise<Submitted> {
    const { text, key, geo } = this.check(request);
    const now = this.now();
    if ('operator' in who) {
      // An operator's run: public, not counted against any allowance, as discovery's and the demo's.
      const run = await startRun(this.db, this.stepQueue, {
        idea: text,
        hints: request.hints ?? [],
        provider: this.settings.provider,
        source: kindOfProviders(this.settings.provider) === 'simulated' ? SOURCES.synthetic : SOURCES.research,
        startedBy: 'cli',
        geo,
        ...(request.language ? { language: request.language } : {}),
      });
      return { kind: 'run', run, madeBefore: false, replayed: false };
    }

    const { accountId, plan } = who;
    const visibility = request.visibility ?? 'private';
    const idempotency = request.idempotency;
    if (idempotency) {
      const earlier = await findRunByIdempotencyKey(this.db, accountId, idempotency.keyHash);
      if (earlier) return this.replayed(earlier, idempotency.fingerprint);
      // A key is kept a day: one used before that is free again.
      await releaseOldIdempotencyKey(this.db, accountId, idempotency.keyHash);
    }
    if (!request.refresh && this.settings.reuseDays > 0) {
      const since = new Date(now.getTime() - this.settings.reuseDays * 86_400_000);
      const insight = await findRecentInsightForIdea(this.db, key, geo, { accountId }, since);
      // A public submission is not answered with the account's private insight, nor the other way round.
      if (insight && (insight.owner_account_id === null) === (visibility === 'public')) return { kind: 'reused', insight };
    }
    const live = await findLiveAccountRun(this.db, accountId, key, geo);
    if (live) return this.joined(accountId, live, idempotency);

    const limit = this.settings.allowance[plan];
    // The allowance's run, the run itself and its key, together or not at all.
    const made = (this.db as Kysely<Database>).transaction().execute(async (trx) => {
      if (!(await spendResearchRun(trx, accountId, limit, now))) return undefined;
      const run = await createRun(trx, {
        idea: text,
        ideaKey: key,
        hints: request.hints ?? [],
        provider: this.settings.provider,
        source: kindOfProviders(this.settings.provider) === 'simulated' ? SOURCES.synthetic : SOURCES.research,
        startedBy: 'api',
        accountId,
        geo,
        ...(request.language ? { language: request.language } : {}),
        visibility,
      });
      if (idempotency) await bindIdempotencyKey(trx, accountId, idempotency, run.id);
      return run;
    });
    const run = await made.catch(async (error: unknown) => {
      // A concurrent request made the run first: one with the same Idempotency-Key, or of the same
      // idea for the same market (the unique keys; this transaction, its allowance's run
      // included, rolled back). Answer with that one.
      if ((error as { code?: string }).code === '23505') {
        if (idempotency) {
          const earlier = await findRunByIdempotencyKey(this.db, accountId, idempotency.keyHash);
          if (earlier) return this.replayed(earlier, idempotency.fingerprint);
        }
        const live = await findLiveAccountRun(this.db, accountId, key, geo);
        if (live) return this.joined(accountId, live, idempotency);
      }
      throw error;
    });
    if (run === undefined) throw new ResearchAllowanceSpentError(allowanceState(limit, limit, now));
    if ('kind' in run) return run;
    await this.stepQueue.start(run);
    return { kind: 'run', run, madeBefore: false, replayed: false };
  }

  /** The answer to a key used before: its run, if the request is the same. */
  private replayed(earlier: { run: RunRow; fingerprint: string }, fingerprint: string): Submitted {
    if (earlier.fingerprint !== fingerprint) {
      throw new IdempotencyKeyReusedError(
        'This Idempotency-Key was used for another research submission (another idea, market or option). Use a new key for a new request.',
      );
    }
    return { kind: 'run', run: earlier.run, madeBefore: true, replayed: true };
  }

  /** A submission joining the account's run under way; its key, if any, is bound to that run, so a retry answers with it. */
  private async joined(accountId: string, run: RunRow, idempotency: SubmitRequest['idempotency']): Promise<Submitted> {
    if (idempotency) {
      try {
        await bindIdempotencyKey(this.db, accountId, idempotency, run.id);
      } catch (error) {
        if ((error as { code?: string }).code !== '23505') throw error;
        // The same key, bound by a concurrent request meanwhile.
        const earlier = await findRunByIdempotencyKey(this.db, accountId, idempotency.keyHash);
        if (earlier) return this.replayed(earlier, idempotency.fingerprint);
      }
    }
    return { kind: 'run', run, madeBefore: true, replayed: false };
  }

  list(
    accountId: string,
    options: { limit: number; states?: readonly RunStatus[]; after?: { createdAt: Date; id: string } },
  ): Promise<AccountRunsPage> {
    return listAccountRuns(this.db, accountId, options);
  }

  /**
   * Cancels the account's run: no further step is taken up, and a trends
   * request only it waits for is dropped before it is sent (trends-fetch asks
   * whether anyone still waits). A run cancelled before its first step gives
   * its run of the allowance back. Undefined: no such run of the account.
   */
  async cancel(accountId: string, id: string): Promise<RunRow | undefined> {
    const outcome = await (this.db as Kysely<Database>).transaction().execute(async (trx) => {
      const cancelled = await cancelRun(trx, accountId, id);
      if (!cancelled) return undefined;
      if (!cancelled.started) await refundResearchRun(trx, accountId, cancelled.run.created_at);
      return cancelled.run;
    });
    if (outcome) return outcome;
    const run = await findAccountRun(this.db, accountId, id);
    if (run) throw new RunNotCancellableError(run);
    return undefined;
  }

  async allowance(accountId: string, plan: Plan): Promise<AllowanceState> {
    const now = this.now();
    const [spent, refunded] = await Promise.all([
      researchRunsSpent(this.db, accountId, now),
      researchRunsRefunded(this.db, accountId, now),
    ]);
    return allowanceState(this.settings.allowance[plan], spent, now, refunded);
  }

  /**
   * Where the run stands and when it should start and finish: from the runs
   * ahead of it in turn (runs take turns by account: StepQueue) and, for
   * live Google, the pace (a run makes about its profile's requestsPerRun requests,
   * each route RPM a minute); for local providers, the median duration of
   * recent runs. A run that holds no turn (queued by older code) counts the
   * runs submitted before it.
   */
  async schedule(run: RunRow): Promise<RunSchedule> {
    const finished = !['queued', 'running', 'waiting'].includes(run.status);
    if (finished)
      return { position: 0, estimatedStartAt: null, estimatedFinishAt: null, basis: `the run is ${run.status}`, estimateNote: null };
    // Runs holding an earlier turn are answered by Google first, even once this one's first step has run.
    const inTurn = await this.stepQueue.turns.ahead(run.id);
    const started = (run.status !== 'queued' || run.next_step > 1) && (inTurn ?? 0) === 0;
    const ahead = started ? 0 : (inTurn ?? (await countRunsAhead(this.db, run)));
    const now = this.now();
    const google = this.settings.google;
    let perRunMs: number;
    let basis: string;
    // The trends queue's pace (Google's, the one queued provider) bounds a run whose series come through it; a run
    // on other providers takes what recent runs took.
    const series = seriesProviderOf(run.provider);
    const queued = series?.queued === true;
    const requests = series?.requestsPerRun?.[google.requestPlan];
    if (queued && requests !== undefined && google.requestsPerMinute > 0) {
      perRunMs = (requests / (google.requestsPerMinute * Math.max(1, google.routes))) * 60_000;
      basis = `${requests} Google requests a run at ${google.requestsPerMinute} a minute on ${google.routes} route${google.routes === 1 ? '' : 's'}, ${ahead} run${ahead === 1 ? '' : 's'} ahead in turn`;
    } else {
      const median = await medianRunMs(this.db, run.provider);
      perRunMs = median ?? 60_000;
      basis =
        median === undefined
          ? `no ${run.provider} run has finished yet: a minute a run assumed, ${ahead} ahead`
          : `the median ${run.provider} run of late took ${Math.round(median / 1000)} s, ${ahead} ahead`;
    }
    const position = started ? 0 : ahead + 1;
    // A time computed from Google's pace assumes Google answers: while the latest evidence says it does not, promise none.
    const trouble = queued ? await this.googleTrouble(now) : null;
    if (trouble) {
      const what =
        trouble.state === 'unreachable' ? 'Google Trends cannot be reached' : "Google Trends is refusing this service's requests (blocked)";
      return {
        position,
        estimatedStartAt: null,
        estimatedFinishAt: null,
        basis,
        estimateNote: `No time can be promised: ${what} (${trouble.evidence}, ${trouble.at.toISOString()}). The run keeps its turn and goes on when Google answers; if it fails because Google cannot be reached or refuses it, its research allowance is given back.`,
      };
    }
    const startAt = started ? run.created_at : new Date(now.getTime() + ahead * perRunMs);
    const finishAt = new Date(Math.max(now.getTime(), startAt.getTime() + perRunMs));
    return { position, estimatedStartAt: startAt, estimatedFinishAt: finishAt, basis, estimateNote: null };
  }

  /**
   * Whether Google is failing now, by the newest evidence of the last hour: the scheduled canary's
   * verdict, or how the latest run asking Google ended (failed unreachable or blocked, or
   * succeeded). The newest decides, so a success after an outage clears it. Null: no sign of trouble.
   */
  async googleTrouble(now: Date = this.now()): Promise<ProviderTrouble | null> {
    const since = new Date(now.getTime() - PROVIDER_EVIDENCE_MS);
    const [last, canary] = await Promise.all([
      latestEndedRunAsking(this.db, 'google', since),
      this.canary ? this.canary().catch(() => null) : Promise.resolve(null),
    ]);
    const readings: Array<{ state: ProviderTrouble['state'] | 'answering'; at: Date; evidence: string }> = [];
    if (last?.finished_at) {
      const kind = last.status === 'failed' && last.error !== null ? failureKind(last.error) : 'answered';
      const state =
        kind === 'answered'
          ? 'answering'
          : kind === 'rateLimited'
            ? 'blocked'
            : kind === 'unreachable' || kind === 'timeout'
              ? 'unreachable'
              : undefined;
      if (state)
        readings.push({
          state,
          at: last.finished_at,
          evidence: `the latest run asking Google ${kind === 'answered' ? 'succeeded' : `failed: ${publicFailure(last.error!)}`}`,
        });
    }
    // A canary stopped by its route's pace, or by the route's EU consent page, says nothing of Google answering.
    if (canary && canary.checkedAt >= since && canary.verdict !== 'stopped' && canary.verdict !== 'consent') {
      const state = canary.verdict === 'unreachable' || canary.verdict === 'blocked' ? canary.verdict : 'answering';
      readings.push({ state, at: canary.checkedAt, evidence: `the Google canary: ${canary.verdict}` });
    }
    const newest = readings.sort((a, b) => b.at.getTime() - a.at.getTime())[0];
    return newest && newest.state !== 'answering' ? { state: newest.state, at: newest.at, evidence: newest.evidence } : null;
  }
}

/** The service's settings from the configuration (the web process and the CLI read the same). */
/** `replay`: what the recordings hold, when replay answers the series (the composition root reads them once). */
export function researchSettings(config: Config, replay?: ReplayCoverage): ResearchSettings {
  return {
    provider: config.trends.provider,
    defaultGeo: config.trends.geo,
    allowance: config.research.allowancePerDay,
    reuseDays: config.research.reuseDays,
    google: {
      requestsPerMinute: config.trends.requestsPerMinute,
      routes: Math.max(1, config.trends.proxyUrls.length),
      requestPlan: config.trends.requestPlan,
    },
    ...(replay ? { replay } : {}),
  };
}
