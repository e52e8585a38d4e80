// Comparing 2 to 5 researched ideas on one scale: their primary phrases asked
// together in one Google Trends request (the GTAB lesson: magnitudes are only
// comparable inside one request), returned as one series per idea on the same
// 0–100 scale, beside each idea's 8 dimension scores.
//
// Each idea must have been researched for the market (publicly, or privately
// by the asking account): its insight gives the primary phrase and the
// dimensions. Live Google is never waited on in a web request: the request goes
// to the trends queue and the answer is 202 with Retry-After; the same
// comparison asked again (its request is the trends job's id for the day) is
// answered once Google has. The first ask of a comparison a day spends one run
// of the account's research allowance; asking again does not.
import type { Db } from '../db/connection.js';
import { createHash } from 'node:crypto';
import { marketProblem } from '../domain/research/market.js';
import { normalizeIdea, validateIdea } from '../domain/research/idea.js';
import type { Plan } from '../domain/quota.js';
import { Refusal } from '../domain/refusal.js';
import type { InterestOverTime, TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';
import { TrendsFailedError, WaitingForTrendsError, type TrendsGateway } from '../providers/gateway.js';
import { sleepFor } from './queued-gateway.js';
import { findRecentInsightForIdea, type InsightRow } from '../insights/insight.repository.js';
import { provenanceKind } from '../domain/provenance.js';
import { allowanceState, type ResearchAllowance } from '../domain/research/allowance.js';
import { chargeComparison, refundComparison } from './allowance.repository.js';
import { InvalidIdeaError } from './start-run.js';
import { ResearchAllowanceSpentError } from './research-service.js';

export const MIN_COMPARED = 2;
export const MAX_COMPARED = 5;

/** Some ideas were never researched for the market: research them first. */
export class NotResearchedError extends Refusal {
  constructor(readonly ideas: string[]) {
    super(
      'notResearched',
      `Not researched for this market yet: ${ideas.map((i) => `"${i.slice(0, 80)}"`).join(', ')}. Research each first (POST /api/research-runs), then compare.`,
    );
  }
}

/**
 * The provider refused the comparison's series for good: not the client's fault, nor a bug, and not charged. What
 * the provider said is the cause, for the operator's log; the client reads only this.
 */
export class ComparisonUnavailableError extends Refusal {
  constructor(override readonly cause: TrendsFailedError) {
    super(
      'searchDataUnavailable',
      'The search-data provider could not answer this comparison; it was not charged to your research allowance.',
    );
  }
}

/** Where the series comes from: answered now, or asked and not answered yet (then how long to wait). */
export interface SeriesSource {
  fetch(request: TrendsRequest): Promise<{ answered: TrendsResponse } | { pendingMs: number }>;
  /** Who answers (google, replay, synthetic, dataforseo): a comparison says what its series rests on. */
  readonly provider?: string;
}

/**
 * Providers asked directly (replay, synthetic, DataForSEO): answered at once,
 * or told to wait (a paid provider's pace or account problem) without holding
 * the request.
 */
export function directSeries(gateway: TrendsGateway, provider?: string): SeriesSource {
  return {
    provider,
    fetch: async (request) => {
      try {
        return { answered: await gateway.fetch(request) };
      } catch (error) {
        if (error instanceof WaitingForTrendsError) return { pendingMs: sleepFor(error, 2_000) };
        throw error;
      }
    },
  };
}

export interface ComparedIdea {
  idea: string;
  insight: InsightRow;
  phrase: string;
}

export type Comparison =
  | { kind: 'pending'; retryAfterMs: number; ideas: ComparedIdea[]; provider: string | null }
  | { kind: 'done'; ideas: ComparedIdea[]; series: InterestOverTime; geo: string; provider: string | null };

export class ComparisonService {
  constructor(
    private readonly db: Db,
    private readonly series: SeriesSource,
    private readonly allowance: ResearchAllowance,
    private readonly now: () => Date = () => new Date(),
    /** Where simulated insights are compared: the simulated world they were researched in, never live Google. */
    private readonly simulated?: SeriesSource,
  ) {}

  async compare(
    who: { accountId: string; plan: Plan },
    ideas: string[],
    geoAsked: string | undefined,
    defaultGeo: string,
  ): Promise<Comparison> {
    if (ideas.length < MIN_COMPARED || ideas.length > MAX_COMPARED) {
      throw new InvalidIdeaError(`compare ${MIN_COMPARED} to ${MAX_COMPARED} ideas (got ${ideas.length})`, 'ideas');
    }
    const geo = (geoAsked ?? defaultGeo).trim().toUpperCase();
    const market = marketProblem(geo);
    if (market) throw new InvalidIdeaError(`geo ${market}`, 'ideas');
    const keys = new Set<string>();
    const compared: ComparedIdea[] = [];
    const missing: string[] = [];
    for (const idea of ideas) {
      const problem = validateIdea(idea);
      if (problem) throw new InvalidIdeaError(`"${idea.slice(0, 40)}": ${problem}`, 'ideas');
      const { key, text } = normalizeIdea(idea);
      if (keys.has(key)) throw new InvalidIdeaError(`"${text.slice(0, 40)}" is given twice`, 'ideas');
      keys.add(key);
      // Any age: a comparison reads today's series; the dimensions are as last researched (their date is in the insight).
      const insight = await findRecentInsightForIdea(this.db, key, geo, { accountId: who.accountId }, new Date(0));
      if (!insight) missing.push(text);
      else compared.push({ idea: text, insight, phrase: insight.primary_keyword });
    }
    if (missing.length > 0) throw new NotResearchedError(missing);
    // Simulated interest and real interest have no common scale: a comparison is of one kind or the other.
    const simulatedCount = compared.filter((c) => provenanceKind(c.insight) === 'simulated').length;
    if (simulatedCount > 0 && simulatedCount < compared.length) {
      throw new InvalidIdeaError(
        `${simulatedCount} of these ${compared.length} ideas were researched in the simulated world and the others on real data: simulated and real interest cannot be put on one scale; compare them apart`,
        'ideas',
      );
    }
    const source = simulatedCount > 0 && this.simulated ? this.simulated : this.series;
    const phrases = compared.map((c) => c.phrase);
    if (new Set(phrases).size !== phrases.length) {
      throw new InvalidIdeaError('two of these ideas were researched on the same search phrase: their series would be one', 'ideas');
    }
    // Asked in one order whatever the order given: the same ideas are the same request (one trends job, one charge).
    const asked = [...phrases].sort();
    const request: TrendsRequest = { kind: 'interestOverTime', keywords: asked, timeframe: '12m', geo };
    const charged = await this.charge(who, request);
    let answer;
    try {
      answer = await source.fetch(request);
    } catch (error) {
      // Refused for good by the provider: the client got nothing, so it pays nothing.
      if (!(error instanceof TrendsFailedError)) throw error;
      if (charged) await refundComparison(this.db, who.accountId, charged.comparison, charged.at);
      throw new ComparisonUnavailableError(error);
    }
    const provider = source.provider ?? null;
    if ('pendingMs' in answer) return { kind: 'pending', retryAfterMs: answer.pendingMs, ideas: compared, provider };
    if (answer.answered.kind !== 'interestOverTime') throw new Error(`the comparison's request was answered with ${answer.answered.kind}`);
    // Back in the order of the ideas given.
    const position = phrases.map((phrase) => asked.indexOf(phrase));
    const series: InterestOverTime = {
      ...answer.answered,
      keywords: phrases,
      points: answer.answered.points.map((point) => ({
        ...point,
        values: position.map((i) => point.values[i] ?? 0),
        hasData: position.map((i) => point.hasData[i] ?? false),
      })),
    };
    return { kind: 'done', ideas: compared, series, geo, provider };
  }

  /** The first ask of this comparison today spends one run of the allowance; a repeat (a poll) does not (allowance.repository.ts). */
  private async charge(who: { accountId: string; plan: Plan }, request: TrendsRequest): Promise<{ comparison: string; at: Date } | null> {
    const now = this.now();
    const comparison = createHash('sha256').update(JSON.stringify(request)).digest('base64url').slice(0, 32);
    const limit = this.allowance[who.plan];
    const charged = await chargeComparison(this.db, who.accountId, comparison, limit, now);
    if (charged === 'spent') throw new ResearchAllowanceSpentError(allowanceState(limit, limit, now));
    return charged === 'charged' ? { comparison, at: now } : null;
  }
}
