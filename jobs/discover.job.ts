// ingest / discover: candidate ideas from Google daily trends, deduplicated
// against existing insights and today's runs, capped per day, each started as
// a research run with source "discovery".
import { UnrecoverableError, type Job } from 'bullmq';
import { sql } from 'kysely';
import type { Db } from '../src/db/connection.js';
import { normalizeIdea, validateIdea } from '../src/domain/research/idea.js';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import { startRun, type ResearchChain } from '../src/research/chain.js';
import { TrendsFailedError, WaitingForTrendsError, type TrendsGateway, type TrendsPurpose } from '../src/research/trends-gateway.js';

export interface DiscoverDeps {
  db: Db;
  chain: ResearchChain;
  trendsFor(provider: string, purpose?: TrendsPurpose): TrendsGateway;
  provider: string;
  geos: string[];
  dailyCap: number;
}

export function discoverProcessor(deps: DiscoverDeps) {
  return async (job: Job, token?: string) => {
    const today = new Date().toISOString().slice(0, 10);
    const startedToday = Number(
      (
        await deps.db
          .selectFrom('research_runs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('started_by', '=', 'discovery')
          .where('created_at', '>=', sql<Date>`date_trunc('day', now() at time zone 'utc') at time zone 'utc'`)
          .executeTakeFirstOrThrow()
      ).n,
    );
    let budget = deps.dailyCap - startedToday;
    const started: string[] = [];
    const skipped: string[] = [];
    // Outside text: a query with control characters (or no letters) is refused, and said so.
    const rejected: Array<{ query: string; reason: string }> = [];
    for (const geo of deps.geos) {
      if (budget <= 0) break;
      let answer;
      try {
        answer = await deps.trendsFor(deps.provider, 'background').fetch({ kind: 'dailyTrends', geo, date: today });
      } catch (error) {
        if (error instanceof WaitingForTrendsError) throw await sleepWithoutAttempt(job, token, 60_000);
        if (error instanceof TrendsFailedError) throw new UnrecoverableError(error.message);
        throw error;
      }
      if (answer.kind !== 'dailyTrends') continue;
      for (const search of answer.searches) {
        if (budget <= 0) break;
        const invalid = validateIdea(search.query);
        if (invalid) {
          rejected.push({ query: JSON.stringify(search.query).slice(0, 120), reason: invalid });
          continue;
        }
        const key = normalizeIdea(search.query).key;
        const known =
          (await deps.db.selectFrom('insights').select('id').where('idea_key', '=', key).executeTakeFirst()) ??
          (await deps.db.selectFrom('research_runs').select('id').where('idea_key', '=', key).where('status', '<>', 'failed').executeTakeFirst());
        if (known) {
          skipped.push(search.query);
          continue;
        }
        await startRun(deps.db, deps.chain, { idea: search.query, hints: [], provider: deps.provider, source: deps.provider === 'synthetic' ? 'synthetic' : 'discovery', startedBy: 'discovery' });
        started.push(search.query);
        budget -= 1;
      }
    }
    return { started, skipped: skipped.length, rejected, remainingToday: Math.max(0, budget) };
  };
}
