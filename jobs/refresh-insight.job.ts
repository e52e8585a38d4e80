// ingest / refresh-insight: one insight's fresh 90 days from a request of its
// own (most insights are refreshed in groups: refresh-group.job.ts; this is for
// the ones a group could not serve precisely). Written in one transaction; if
// anything fails the previous series, forecast and scores stay (src/refresh/).
import type { Static } from '@sinclair/typebox';
import type { Job } from 'bullmq';
import { findInsight } from '../src/insights/insight.repository.js';
import type { RefreshInsightPayload } from '../src/queue/job-catalogue.js';
import { fetchInterest, type RefreshDeps } from '../src/refresh/fetch.js';
import { columnOf, freshSeriesOf } from '../src/refresh/fresh-series.js';
import { providerOf } from '../src/refresh/plan.js';
import { writeFreshSeries } from '../src/refresh/write.js';

export function refreshInsightProcessor(deps: RefreshDeps) {
  return async (job: Job<Static<typeof RefreshInsightPayload>>, token?: string) => {
    const { insightId } = job.data;
    const insight = await findInsight(deps.db, insightId);
    if (!insight || insight.status !== 'active') return { skipped: 'no such active insight' };
    if (insight.source === 'recorded-series') return { skipped: 'a recorded series is static' };
    const provider = providerOf(insight, deps.provider);
    if (provider === null)
      return { skipped: `researched with ${insight.provider ?? 'a live provider'}: refreshed only from that kind of source` };
    const answer = await fetchInterest(deps, job, token, provider, [insight.primary_keyword], `refresh of ${insightId}`);
    const [written] = await writeFreshSeries(deps, [freshSeriesOf(insight, columnOf(answer, 0), undefined)]);
    return written;
  };
}
