// Every answer says what data it rests on (issue 47): a simulated insight says
// "simulated" and a replayed one "recorded" with its dates wherever a person
// reads it (the API's list and detail, the CSV, the report in HTML and
// Markdown, the chart, the account pages, the webhook body), each with its
// provider and the last day of its data; the default order puts research on
// live data first; the quick start's catalogue leads with named startup ideas
// labelled simulated, and its recorded series are asked by name, in the US,
// dated 2020.
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvitation } from '../../src/members/invitations.js';
import { loadConfig } from '../../src/config.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { DEMO_IDEAS, startDemoResearch } from '../../src/demo/demo-research.js';
import { seedDemo } from '../../src/demo/demo-seed.js';
import { SOURCES } from '../../src/domain/catalog.js';
import { normalizeIdea } from '../../src/domain/research/idea.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { InvalidIdeaError, startRun } from '../../src/research/start-run.js';
import { ComparisonService, directSeries } from '../../src/research/comparison-service.js';
import { DirectTrendsGateway } from '../../src/providers/gateway.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import type { TrendsRequest } from '../../src/domain/trends/answers.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { startTestWorkers } from '../support/services.js';
import { loadEventsWithInsights } from '../../src/webhooks/event.repository.js';
import { webhookBody } from '../../src/webhooks/payload.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { PageAgent, ORIGIN } from '../support/account-pages.js';
import { createTestDatabase } from '../support/database.js';
import { parseCsv } from '../support/csv.js';
import { insertInsight } from '../support/fixtures.js';
import { until } from '../support/pipeline.js';
import { testResources } from '../support/redis.js';
import { DEMO_SERIES_DIR } from '../support/shared-data.js';

let t: TestApp;
let pipeline: Pipeline;
let key: string;
let accountId: string;
const owner = { email: 'founder@example.com', password: 'a long enough passphrase' };
let agent: PageAgent;

beforeAll(async () => {
  t = await createTestApp({ cacheTtlSeconds: 0, research: {} });
  ({ key, accountId } = await t.researchKey('enterprise'));
  const config = loadConfig({ REDIS_PREFIX: t.redis.prefix, TRENDS_PROVIDER: 'synthetic', WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey });
  pipeline = await startTestWorkers(testResources(t.database, t.redis), config, pino({ level: 'silent' }));
  agent = new PageAgent(t.app);
  const invited = await createInvitation(
    t.database.db,
    { accountId, accountName: 'an account', email: owner.email, role: 'owner', invitedBy: null },
    ORIGIN,
    { printTo: 'operator' },
  );
  if (invited.kind !== 'printed') throw new Error(`no invitation: ${invited.kind}`);
  expect((await agent.acceptInvitation(invited.link, owner.password)).statusCode).toBe(303);
  expect((await agent.signIn(owner.email, owner.password)).headers.location).toBe('/account');
});
afterAll(async () => {
  await pipeline?.close();
  await t?.close();
});

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers: { ...bearer(key), ...headers } });
const runStatus = async (id: string) =>
  (await t.database.db.selectFrom('research_runs').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const finished = (status: string) => status === 'succeeded' || status === 'failed' || status === 'cancelled';
async function ranToTheEnd(runId: string, what: string): Promise<string> {
  expect(await until(() => runStatus(runId), finished, 180_000, what)).toBe('succeeded');
  return (await t.database.db.selectFrom('research_runs').select('insight_id').where('id', '=', runId).executeTakeFirstOrThrow())
    .insight_id!;
}
/** The last day of every series the insight keeps: what data_as_of must say. */
async function lastDayOfData(insightId: string): Promise<string> {
  let last = '';
  for (const window of ['30d', '90d', '12m', '5y']) {
    const res = await get(`/api/insights/${insightId}/trend-data?window=${window}`);
    if (res.statusCode !== 200) continue;
    for (const p of res.json().data as Array<{ date: string }>) if (p.date > last) last = p.date;
  }
  return last;
}

describe("the quick start's catalogue", () => {
  it('leads with named startup ideas labelled simulated; the recorded series follow, asked by name, in the US, dated 2020', async () => {
    const seeded = await seedDemo(t.database.db, DEMO_SERIES_DIR);
    expect(seeded.inserted).toBe(48);
    const runs = await startDemoResearch(t.database.db, new StepQueue(pipeline.queues.research));
    expect(runs).toHaveLength(DEMO_IDEAS.length);
    expect(DEMO_IDEAS.length).toBeGreaterThanOrEqual(15);
    for (const id of runs) await ranToTheEnd(id, `demo run ${id}`);

    const list = (await get('/api/insights?limit=100')).json().data as Array<Record<string, any>>;
    expect(list).toHaveLength(48 + DEMO_IDEAS.length);
    const leading = list.slice(0, DEMO_IDEAS.length);
    expect(leading.map((i) => i.idea).sort()).toEqual([...DEMO_IDEAS].sort());
    for (const i of leading) {
      expect(i).toMatchObject({ source: 'synthetic', provider: 'synthetic', provenance: { kind: 'simulated', label: 'simulated' } });
      expect(i.title).toBe(`${i.idea} (simulated)`);
      expect(i.data_as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    for (const i of list.slice(DEMO_IDEAS.length)) {
      expect(i).toMatchObject({
        source: SOURCES.recordedSeries,
        geo: 'US',
        provider: null,
        data_from: '2020-04-28',
        data_as_of: '2020-07-26',
        provenance: { kind: 'recorded', label: 'recorded 2020-04-28 to 2020-07-26' },
      });
      expect(i.title).toMatch(/^[^/].* — US search interest \(recorded 2020-04-28 to 2020-07-26\)$/);
    }
    for (const i of list) expect(i.primary_keyword, i.title).not.toMatch(/^\/[mg]\//);
    const cookie = list.find((i) => i.primary_keyword === 'Cookie Crisp');
    expect(cookie?.idea).toMatch(/Google topic \/m\/06v628\), 2020-04-28 to 2020-07-26 .*a real series of 2020, not a startup idea/);
  }, 600_000);
});

describe('a simulated insight', () => {
  let runId: string;
  let insightId: string;
  let asOf: string;

  beforeAll(async () => {
    const submitted = await t.app.inject({
      method: 'POST',
      url: '/api/research-runs',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ idea: 'Moss wall kits for renters', geo: 'US' }),
    });
    expect(submitted.statusCode, submitted.body).toBe(202);
    runId = submitted.json().data.id;
    insightId = await ranToTheEnd(runId, 'the simulated run');
    asOf = await lastDayOfData(insightId);
    expect(asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  }, 300_000);

  it('says "simulated", its provider and the last day of its data in the API, list and detail', async () => {
    const detail = (await get(`/api/insights/${insightId}`)).json();
    expect(detail).toMatchObject({
      title: 'Moss wall kits for renters (simulated)',
      idea: 'Moss wall kits for renters',
      provider: 'synthetic',
      provenance: { kind: 'simulated', label: 'simulated', source: expect.stringMatching(/simulated world/) },
      data_as_of: asOf,
    });
    const listed = ((await get('/api/insights?limit=100')).json().data as Array<Record<string, unknown>>).find((i) => i.id === insightId);
    expect(listed).toMatchObject({ title: 'Moss wall kits for renters (simulated)', provenance: { kind: 'simulated' }, data_as_of: asOf });
  });

  it('says so in the CSV', async () => {
    const csv = await get('/api/insights?limit=100', { accept: 'text/csv' });
    const [header, ...records] = parseCsv(csv.body);
    const row = records.find((r) => r[0] === insightId)!;
    const cell = (name: string) => row[header!.indexOf(name)];
    expect(cell('title')).toBe('Moss wall kits for renters (simulated)');
    expect(cell('provider')).toBe('synthetic');
    expect(cell('provenance')).toBe('simulated');
    expect(cell('data_as_of')).toBe(asOf);
  });

  it('says so in the report (HTML and Markdown) and the chart', async () => {
    const html = (await get(`/api/insights/${insightId}/report`, { accept: 'text/html' })).body;
    expect(html).toContain('Moss wall kits for renters (simulated)</h1>');
    expect(html).toMatch(/Simulated: researched in a simulated world/);
    expect(html).toMatch(new RegExp(`Data as of</dt><dd[^>]*>${asOf}`));
    expect(html).toMatch(/Simulated interest \(0–100\)/);
    expect(html).not.toMatch(/Google Trends interest/);
    const md = (await get(`/api/insights/${insightId}/report`, { accept: 'text/markdown' })).body;
    expect(md).toMatch(/^# .*Moss wall kits for renters \(simulated\)/m);
    expect(md).toMatch(/^> Simulated: researched in a simulated world/m);
    expect(md).toMatch(new RegExp(`Data as of \\| ${asOf} \\|`));
    expect(md).toMatch(/Simulated interest \(0–100\)/);
    expect(md).not.toMatch(/Google Trends interest/);
    const svg = (await get(`/api/insights/${insightId}/chart.svg`)).body;
    expect(svg).toContain('<title>Moss wall kits for renters (simulated)</title>');
    expect(svg).toMatch(/Simulated interest, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}/);
  });

  it("says so on the account's insights list: the label and the last day of data", async () => {
    const list = await agent.get('/account/insights');
    expect(list.statusCode).toBe(200);
    const row = list.body.split('<tr>').find((r) => r.includes(`/account/insights/${insightId}"`))!;
    expect(row).toContain('Moss wall kits for renters (simulated)');
    expect(row).toContain('synthetic (simulated)');
    expect(row).toContain(`<td>${asOf}</td>`);
  });

  it('says so in `insights show`: the label, the provider and the last day of data', async () => {
    const res = await runCli(['show', insightId], { ...t.database.env, REDIS_URL: t.redis.url, REDIS_PREFIX: t.redis.prefix });
    expect(res.code, res.stderr).toBe(0);
    const [first, second] = res.stdout.split('\n');
    expect(first).toContain('Moss wall kits for renters (simulated)');
    expect(second).toContain(`provider synthetic (simulated)  data as of ${asOf}`);
  });

  it("says so on the account's research list and the run's page", async () => {
    const list = await agent.get('/account/research');
    expect(list.statusCode).toBe(200);
    const row = list.body.split('<tr>').find((r) => r.includes(runId))!;
    expect(row).toContain('Moss wall kits for renters (simulated)');
    expect(row).toContain('synthetic (simulated)');
    expect(row).toContain(asOf);
    const page = await agent.get(`/account/research/${runId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<dt>Idea</dt><dd>Moss wall kits for renters (simulated)</dd>');
    expect(page.body).toContain(`<dt>Source</dt><dd>synthetic (simulated)</dd><dt>Data as of</dt><dd>${asOf}</dd>`);
  });

  it('says so in the webhook body its event is sent with', async () => {
    const event = await t.database.db
      .selectFrom('outbox_events')
      .select('id')
      .where('insight_id', '=', insightId)
      .where('type', '=', 'insight.created')
      .executeTakeFirstOrThrow();
    const [loaded] = await loadEventsWithInsights(t.database.db, [event.id]);
    const body = JSON.parse(webhookBody(loaded!, loaded!.insight, 'https://insights.example'));
    expect(body.data).toMatchObject({
      id: insightId,
      title: 'Moss wall kits for renters (simulated)',
      provider: 'synthetic',
      provenance: { kind: 'simulated', label: 'simulated' },
      data_as_of: asOf,
    });
  });
});

describe('a replayed insight', () => {
  it('says "recorded" with the days of its data, and dates its outlook and windows from them, not from today', async () => {
    const run = await startRun(t.database.db, new StepQueue(pipeline.queues.research), {
      idea: 'pizza',
      hints: [],
      provider: 'replay',
      source: SOURCES.research,
    });
    const insightId = await ranToTheEnd(run.id, 'the replayed run');
    const last = await lastDayOfData(insightId);
    const detail = (await get(`/api/insights/${insightId}`)).json();
    expect(detail.data_as_of).toBe(last);
    expect(last < '2023-01-01').toBe(true); // recordings of 2021-2022
    expect(detail.data_from < detail.data_as_of).toBe(true);
    expect(detail).toMatchObject({
      provider: 'replay',
      provenance: { kind: 'recorded', label: `recorded ${detail.data_from} to ${last}` },
      title: `pizza (recorded ${detail.data_from} to ${last})`,
    });
    // The evidence names the source and the day it was recorded, not "in Sat, (replay)".
    const evidence = JSON.stringify(detail.dimensions);
    expect(evidence).not.toMatch(/gave in [A-Z][a-z]{2},/);
    expect(evidence).toMatch(/Google Trends answers recorded on 20\d\d-\d\d-\d\d \(replay\)/);
    const horizon = (detail.outlook?.horizons as Array<{ withheld: boolean; months: number }> | undefined)?.find((h) => !h.withheld);
    // The recordings' 5 years serve a 3-month horizon: its sentence counts from the last day of data.
    expect(horizon).toBeDefined();
    const outlookSentence = detail.decision.why_now.find((s: { text: string }) => /interest is expected to average/.test(s.text));
    if (horizon)
      expect(outlookSentence.text).toMatch(new RegExp(`^In the ${horizon.months} months after ${last} \\(the last day of data\\)`));

    const md = (await get(`/api/insights/${insightId}/report`, { accept: 'text/markdown' })).body;
    expect(md).toMatch(
      new RegExp(
        `^> Recorded: it rests on recorded real Google Trends answers \\(replay\\), ${detail.data_from} to ${last}\\. The data ends ${last}`,
        'm',
      ),
    );
    expect(md).toMatch(
      new RegExp(`Source \\| recorded real Google Trends answers \\(replay\\), ${detail.data_from} to ${last} \\(research\\)`),
    );
    expect(md).not.toMatch(/Source \| research \|/);
    expect(md).toMatch(/Recorded Google Trends interest \(0–100\), \d+ (weeks|days) from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}/);
    if (horizon) expect(md).toContain(`In the ${horizon.months} months after ${last} (the last day of data)`);
    const html = (await get(`/api/insights/${insightId}/report`, { accept: 'text/html' })).body;
    expect(html).toContain(`pizza (recorded ${detail.data_from} to ${last})</h1>`);
    expect(html).toContain(`The data ends ${last}`);
  }, 300_000);
});

describe('the default order', () => {
  it('puts research on live data above simulated and recorded insights that score higher', async () => {
    const ids = {
      live: await insertInsight(t.database.db, { score: 0.2, title: 'Live research, low score' }),
      simulated: await insertInsight(t.database.db, { score: 0.99, source: 'synthetic', title: 'Simulated, high score' }),
      recorded: await insertInsight(t.database.db, { score: 0.95, title: 'Replayed, high score' }),
    };
    await t.database.db.updateTable('insights').set({ provider: 'google' }).where('id', '=', ids.live).execute();
    await t.database.db.updateTable('insights').set({ provider: 'synthetic' }).where('id', '=', ids.simulated).execute();
    await t.database.db.updateTable('insights').set({ provider: 'replay' }).where('id', '=', ids.recorded).execute();
    for (const url of ['/api/insights?limit=100', '/api/insights?limit=100&sort=score']) {
      const order = ((await get(url)).json().data as Array<{ id: string }>).map((i) => i.id);
      expect(order.indexOf(ids.live), url).toBe(0);
      expect(order.indexOf(ids.live)).toBeLessThan(order.indexOf(ids.recorded));
      expect(order.indexOf(ids.recorded)).toBeLessThan(order.indexOf(ids.simulated));
    }
    // Paged three at a time, the same order: the cursor carries the new key.
    const paged: string[] = [];
    let url: string | null = '/api/insights?limit=3';
    while (url) {
      const page = (await get(url)).json() as { data: Array<{ id: string }>; next_cursor: string | null };
      paged.push(...page.data.map((i) => i.id));
      url = page.next_cursor ? `/api/insights?limit=3&cursor=${page.next_cursor}` : null;
    }
    expect(paged).toEqual(((await get('/api/insights?limit=100')).json().data as Array<{ id: string }>).map((i) => i.id));
    // A cursor made under the old key is refused, saying why.
    const old = Buffer.from(JSON.stringify(['score:rank', 1.5, ids.live])).toString('base64url');
    const refused = await get(`/api/insights?cursor=${old}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().invalid_params[0]).toMatchObject({
      name: 'cursor',
      reason: expect.stringMatching(/live data first \(2026-11-28\)/),
    });
  });

  it('carries the provider of each idea and of the shared series in a comparison', async () => {
    const list = (await get('/api/insights?limit=100&source=synthetic')).json().data as Array<{ idea: string; geo: string }>;
    const compared = list.filter((i) => i.idea === DEMO_IDEAS[0] || i.idea === DEMO_IDEAS[1]);
    expect(compared).toHaveLength(2);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/comparisons',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ ideas: compared.map((i) => i.idea), geo: compared[0]!.geo }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ provider: 'synthetic', provenance: 'simulated' });
    for (const idea of res.json().data.ideas)
      expect(idea).toMatchObject({
        provider: 'synthetic',
        provenance: 'simulated',
        data_as_of: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      });
  });
});

describe('comparing simulated insights', () => {
  it('asks the simulated world they came from, never live Google, and refuses to put simulated and real interest on one scale', async () => {
    // The service's provider is live Google, which never answers here (a founder's review: "not answered yet" for minutes).
    const asked: string[][] = [];
    const google = {
      provider: 'google',
      fetch: async (request: TrendsRequest) => {
        asked.push('keywords' in request ? request.keywords : [request.kind]);
        return { pendingMs: 5_000 };
      },
    };
    const simulated = directSeries(new DirectTrendsGateway(new SyntheticTrendsProvider()), 'synthetic');
    const service = new ComparisonService(t.database.db, google, { free: 3, starter: 20, pro: 100, enterprise: 500 }, undefined, simulated);
    const list = (await get('/api/insights?limit=100&source=synthetic')).json().data as Array<{ idea: string; geo: string }>;
    const pair = list.filter((i) => i.idea === DEMO_IDEAS[0] || i.idea === DEMO_IDEAS[1]);
    expect(pair).toHaveLength(2);
    const done = await service.compare(
      { accountId, plan: 'enterprise' },
      pair.map((i) => i.idea),
      pair[0]!.geo,
      'US',
    );
    expect(done).toMatchObject({ kind: 'done', provider: 'synthetic' });
    expect(asked).toEqual([]);
    // One simulated and one researched on live data: refused, saying why.
    const live = await insertInsight(t.database.db, { idea: 'Live espresso carts', keywords: ['espresso cart'], score: 0.5 });
    await t.database.db
      .updateTable('insights')
      .set({ idea_key: normalizeIdea('Live espresso carts').key, geo: pair[0]!.geo, provider: 'google', source: 'research' })
      .where('id', '=', live)
      .execute();
    await expect(
      service.compare({ accountId, plan: 'enterprise' }, [pair[0]!.idea, 'Live espresso carts'], pair[0]!.geo, 'US'),
    ).rejects.toThrow(InvalidIdeaError);
    expect(asked).toEqual([]);
  });
});

describe('migration 2026-11-28T0021-provenance', () => {
  it('dates stored insights by their series, moves the seeded series to recorded-series (US, asked by name) and ranks by provenance', async () => {
    // Only a database, taken back to an older migration: no Redis, so not a stack.
    const old = await createTestDatabase();
    try {
      await migrateTo(old.db, '2026-11-27T0020-millisecond-times');
      const insert = (id: string, source: string, provider: string | null, keywords: string[]) =>
        sql`insert into insights (id, idea_key, title, idea, primary_keyword, keywords, category, source, provider, overall_score, confidence, dimensions)
            values (${id}, ${`key ${id}`}, 't', 'i', ${keywords[0]!}, ${JSON.stringify(keywords)}::jsonb, 'food-drink', ${source}, ${provider}, 0.9, 0.9, '{}'::jsonb)`.execute(
          old.db,
        );
      await insert('ins_seeded', 'demo', null, ['/m/06v628', 'Cookie Crisp']);
      await insert('ins_live', 'research', 'google', ['live']);
      await insert('ins_replay', 'research', 'replay', ['pizza']);
      for (const date of ['2020-07-25', '2020-07-26'])
        await sql`insert into trend_points (insight_id, date, value, is_partial, fetched_at) values ('ins_seeded', ${date}, 50, false, now())`.execute(
          old.db,
        );
      await sql`insert into insight_series (insight_id, timeframe, points, fetched_at)
                values ('ins_replay', '5y', ${JSON.stringify([
                  { date: '2017-11-05', value: 1, is_partial: false },
                  { date: '2022-10-23', value: 2, is_partial: false },
                ])}::jsonb, now())`.execute(old.db);

      await migrateToLatest(old.db);
      const rows = await old.db
        .selectFrom('insights')
        .select(['id', 'source', 'geo', 'primary_keyword', 'keywords', 'data_from', 'data_as_of', 'rank_key'])
        .orderBy('rank_key', 'desc')
        .execute();
      expect(rows.map((r) => r.id)).toEqual(['ins_live', 'ins_replay', 'ins_seeded']);
      expect(rows[1]).toMatchObject({ data_from: '2017-11-05', data_as_of: '2022-10-23' });
      expect(rows[2]).toMatchObject({
        source: 'recorded-series',
        geo: 'US',
        primary_keyword: 'Cookie Crisp',
        keywords: ['Cookie Crisp'],
        data_from: '2020-07-25',
        data_as_of: '2020-07-26',
      });
    } finally {
      await old.destroy();
    }
  });
});
