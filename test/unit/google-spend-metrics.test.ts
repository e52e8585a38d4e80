// /metrics counts Google's requests by endpoint family and purpose: a trends job's exchanges are
// counted under the purpose its priority says (research first, the refresh and discovery after).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/observability/metrics.js';
import { spendingFor } from '../../src/observability/trends-purpose.js';
import { watchGoogleAnswers } from '../../src/runtime/google-answers.js';

async function count(family: string, purpose: string): Promise<number> {
  const metric = await registry.getSingleMetric('google_trends_https_total')!.get();
  return metric.values.find((v) => v.labels.family === family && v.labels.purpose === purpose)?.value ?? 0;
}

describe('Google requests by family on /metrics', () => {
  it('counts each exchange under its endpoint family and the purpose of the job that made it', async () => {
    const observe = watchGoogleAnswers(pino({ level: 'silent' }));
    const report = (kind: string) => observe({ kind, outcome: 'served', ms: 5, route: 'direct' } as never);
    const before = {
      explore: await count('explore', 'research'),
      widgetdata: await count('widgetdata', 'research'),
      embed: await count('embed', 'background'),
    };
    await spendingFor('research', async () => {
      report('explore');
      await Promise.resolve();
      report('comparedgeo');
      report('embed_relatedsearches');
    });
    await spendingFor('background', async () => report('embed_page'));
    expect(await count('explore', 'research')).toBe(before.explore + 1);
    expect(await count('widgetdata', 'research')).toBe(before.widgetdata + 2);
    expect(await count('embed', 'background')).toBe(before.embed + 1);
    expect(await registry.metrics()).toContain('research_runs_succeeded_total');
  });
});
