// ingest / discover: candidate ideas from Google's trending searches (the RSS
// feed /trending/rss?geo=XX, else the Trending Now RPC, else the /trending
// page: providers/google/trending.ts; the old dailytrends endpoint answers 404
// since 2025-02), deduplicated against existing insights and today's runs,
// capped per day, each started as a research run with source "discovery" and
// the evidence: Google's approximate traffic, the news that linked it, and
// which road served (also counted per road in /metrics).
import { UnrecoverableError, type Job } from 'bullmq';
import type { Db } from '../src/db/connection.js';
import { normalizeIdea, validateIdea } from '../src/domain/research/idea.js';
import { discoveryEvidence, roadOf } from '../src/domain/trends/google/discovery.js';
import type { TrendingRoad } from '../src/domain/trends/answers.js';
import { trendingReads } from '../src/observability/metrics.js';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import type { StepQueue } from '../src/research/step-queue.js';
import { startRun } from '../src/research/start-run.js';
import { insightExistsForIdeaKey } from '../src/insights/insight.repository.js';
import { countRunsStartedToday, liveRunExistsForIdeaKey } from '../src/research/run.repository.js';
import { kindOfProviders } from '../src/providers/registry.js';
import { TrendsFailedError, WaitingForTrendsError, type TrendsGateway, type TrendsPurpose } from '../src/providers/gateway.js';
import { sleepFor } from '../src/research/queued-gateway.js';

export interface DiscoverDeps {
  db: Db;
  stepQueue: StepQueue;
  trendsFor(provider: string, purpose?: TrendsPurpose): TrendsGateway;
  provider: string;
  geos: readonly string[];
  dailyCap: number;
}

export function discoverProcessor(deps: DiscoverDeps) {
  return async (job: Job, token?: string) => {
    let budget = deps.dailyCap - (await countRunsStartedToday(deps.db, 'discovery'));
    const started: string[] = [];
    const skipped: string[] = [];
    // Outside text: a query with control characters (or no letters) is refused, and said so.
    const rejected: Array<{ query: string; reason: string }> = [];
    const roads: Record<string, TrendingRoad> = {};
    for (const geo of deps.geos) {
      if (budget <= 0) break;
      let answer;
      try {
        answer = await deps.trendsFor(deps.provider, 'background').fetch({ kind: 'trendingFeed', geo });
      } catch (error) {
        if (error instanceof WaitingForTrendsError) throw await sleepWithoutAttempt(job, token, sleepFor(error, 60_000));
        // No configured provider has a trending feed (DataForSEO alone): nothing to discover, and nothing wrong.
        if (error instanceof TrendsFailedError && error.notAvailable)
          return { started, skipped: skipped.length, rejected, roads, remainingToday: Math.max(0, budget), notAvailable: error.message };
        if (error instanceof TrendsFailedError) {
          trendingReads.inc({ provider: deps.provider, road: 'none' });
          throw new UnrecoverableError(error.message);
        }
        throw error;
      }
      if (answer.kind !== 'trendingFeed') throw new UnrecoverableError(`expected the trending feed for ${geo}, got ${answer.kind}`);
      roads[geo] = roadOf(answer);
      trendingReads.inc({ provider: deps.provider, road: roads[geo] });
      for (const item of answer.items) {
        if (budget <= 0) break;
        const invalid = validateIdea(item.query);
        if (invalid) {
          rejected.push({ query: JSON.stringify(item.query).slice(0, 120), reason: invalid });
          continue;
        }
        const key = normalizeIdea(item.query).key;
        const known = (await insightExistsForIdeaKey(deps.db, key)) || (await liveRunExistsForIdeaKey(deps.db, key));
        if (known) {
          skipped.push(item.query);
          continue;
        }
        await startRun(deps.db, deps.stepQueue, {
          idea: item.query,
          hints: [],
          provider: deps.provider,
          source: kindOfProviders(deps.provider) === 'simulated' ? 'synthetic' : 'discovery',
          startedBy: 'discovery',
          discovery: discoveryEvidence(item, geo, answer),
        });
        started.push(item.query);
        budget -= 1;
      }
    }
    return { started, skipped: skipped.length, rejected, roads, remainingToday: Math.max(0, budget) };
  };
}
