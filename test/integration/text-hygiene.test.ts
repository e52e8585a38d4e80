// Control characters never get in (CLI, discovery, webhook criteria), and what
// is rendered (SVG, terminal output) escapes whatever older data holds.
import { Queue } from 'bullmq';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverProcessor } from '../../jobs/discover.job.js';
import { forecast } from '../../src/domain/forecast/forecaster.js';
import { newId } from '../../src/domain/ids.js';
import { upsertForecast } from '../../src/insights/forecast.repository.js';
import { upsertInsight } from '../../src/insights/insight.repository.js';
import { replaceTrendPoints } from '../../src/insights/trend-point.repository.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import type { TrendsGateway } from '../../src/providers/gateway.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { dimensionsWith } from '../support/fixtures.js';

// ESC sequences, BEL, NUL, C1 CSI, a bidi override, a lone surrogate, markup.
const HOSTILE = [
  '\u001b[31mred\u001b[0m',
  'bell\u0007',
  'nul\u0000',
  'csi\u009b2J',
  'bidi\u202egnp.exe',
  'half\ud800',
  '</text><script>x</script>&amp;',
];
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

let t: TestApp;
let env: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  env = { ...t.database.env, REDIS_URL: t.redis.url, REDIS_PREFIX: t.redis.prefix };
});
afterAll(() => t.close());

function parseXml(xml: string): void {
  const parser = new SaxesParser({ xmlns: true });
  let failure: Error | undefined;
  parser.on('error', (e) => (failure ??= e));
  parser.write(xml).close();
  if (failure) throw failure;
}

describe('text from outside', () => {
  it('is refused with a clear message at the CLI: ideas, keyword hints, key names, webhook keywords', async () => {
    // A NUL cannot be passed in argv at all; every other one must be refused with a message.
    const commands = HOSTILE.slice(0, 5)
      .filter((h) => !h.includes('\u0000'))
      .flatMap((bad) => [
        ['research', `Meal planner ${bad}`],
        ['research', 'Meal planner', '--keyword', `meal ${bad}`],
        ['keys', 'create', '--name', `ops ${bad}`, '--plan', 'free'],
        ['webhooks', 'add', '--url', 'https://example.com/hook', '--keyword', `meal ${bad}`],
      ]);
    // Four CLI processes at a time: each is independent, and most of its time is Node starting.
    for (let i = 0; i < commands.length; i += 4) {
      const batch = commands.slice(i, i + 4);
      const results = await Promise.all(batch.map((args) => runCli(args, env)));
      results.forEach((result, j) => {
        expect(result.code, `${batch[j]!.join(' ')}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(/control character U\+[0-9A-F]{4}/);
        expect(result.stderr).not.toMatch(RAW_CONTROL);
      });
    }
    expect(await t.database.db.selectFrom('research_runs').select('id').execute()).toHaveLength(0);
  }, 300_000);

  it('is refused by discovery, which says which queries it dropped', async () => {
    const queue = new Queue(QUEUES.research, {
      connection: createRedis(t.redis.url, 'worker'),
      prefix: t.redis.keys.queuePrefix(QUEUES.research),
    });
    const gateway: TrendsGateway = {
      fetch: async () => ({
        kind: 'trendingFeed' as const,
        items: [
          { query: 'Sourdough starter kits', approxTraffic: '1000+', published: null, news: [] },
          ...HOSTILE.slice(0, 5).map((q) => ({ query: `trend ${q}`, approxTraffic: '500+', published: null, news: [] })),
        ],
        provenance: { provider: 'synthetic' as const },
      }),
    };
    const discover = discoverProcessor({
      db: t.database.db,
      stepQueue: new StepQueue(queue),
      trendsFor: () => gateway,
      provider: 'synthetic',
      geos: ['US'],
      dailyCap: 10,
    });
    const result = await discover({} as never);
    expect(result.started).toEqual(['Sourdough starter kits']);
    expect(result.rejected).toHaveLength(5);
    for (const r of result.rejected) expect(r.reason).toMatch(/control character/);
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('older data with hostile text is escaped wherever it is rendered: chart.svg parses as XML, the CLI prints no control character', async () => {
    const key = await t.key('enterprise');
    // Postgres cannot store NUL in text, so no stored row holds one.
    for (const bad of HOSTILE.filter((h) => !h.includes('\u0000'))) {
      const id = newId('insight');
      await upsertInsight(t.database.db, {
        id,
        idea_key: `hostile ${id}`,
        title: `Title ${bad}`,
        idea: `Idea ${bad}`,
        primary_keyword: `kw ${bad}`,
        keywords: [`kw`],
        category: 'computers-electronics',
        source: 'research',
        overall_score: 0.5,
        confidence: 0.5,
        dimensions: dimensionsWith(0.5),
        summary: `Summary ${bad}`,
        status: 'active',
      });
      const series = Array.from({ length: 30 }, (_, i) => ({
        date: new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10),
        value: 40 + (i % 7),
      }));
      await t.database.db.transaction().execute(async (trx) => {
        await replaceTrendPoints(trx, id, series, new Date());
        await upsertForecast(
          trx,
          id,
          {
            ...forecast(
              series.map((p) => p.date),
              series.map((p) => p.value),
            ),
            withheld: true,
            reason: `reason ${bad}`,
          } as never,
          new Date(),
        );
      });
      const svg = await t.app.inject({ url: `/api/insights/${id}/chart.svg`, headers: bearer(key) });
      expect(svg.statusCode).toBe(200);
      expect(() => parseXml(svg.body), JSON.stringify(bad)).not.toThrow();
      const json = await t.app.inject({ url: `/api/insights/${id}`, headers: bearer(key) });
      expect(json.json().title).toBe(`Title ${bad}`.replace(/[\ud800-\udfff]/u, '\ufffd')); // JSON carries the text, escaped by JSON itself

      const shown = await runCli(['show', id], env);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout, JSON.stringify(bad)).not.toMatch(RAW_CONTROL);
    }
    const runId = newId('run');
    await t.database.db
      .insertInto('research_runs')
      .values({
        id: runId,
        idea: `Run ${HOSTILE[0]}${HOSTILE[3]}`,
        idea_key: `run ${runId}`,
        keyword_hints: JSON.stringify([`hint ${HOSTILE[1]}`]),
        provider: 'synthetic',
        source: 'synthetic',
        status: 'failed',
        error: `error ${HOSTILE[4]}`,
      })
      .execute();
    for (const args of [
      ['runs', 'show', runId],
      ['runs', 'list'],
    ]) {
      const out = await runCli(args, env);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain('\\u{1b}');
      expect(out.stdout).not.toMatch(RAW_CONTROL);
    }
  }, 300_000);
});
