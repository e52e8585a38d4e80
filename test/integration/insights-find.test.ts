// Finding and ordering insights: sort by any dimension, q= full-text search,
// trend_class=, with each other and with the cursor; the methodology; and the
// 400s that name what is allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { EVIDENCE_AGREEMENT } from '../../src/domain/scoring/agreement-results.js';
import { BACKTEST } from '../../src/domain/scoring/backtest-results.js';
import { TREND_CLASSES, type TrendClass } from '../../src/domain/scoring/trend-class.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { insertInsight } from '../support/fixtures.js';

let t: TestApp;
let key: string;
const COUNT = 48;
const topics = [
  'Coffee subscription for offices',
  'Dog walking marketplace',
  'Invoice reminders for freelancers',
  'Restaurant booking widget',
];
const fixtures: Array<{ id: string; momentum: number | null; pain: number; trendClass: TrendClass; topic: string }> = [];

beforeAll(async () => {
  t = await createTestApp({ cacheTtlSeconds: 0 });
  key = await t.key('enterprise');
  for (let i = 0; i < COUNT; i += 1) {
    const momentum = i % 9 === 0 ? null : ((i * 29) % 100) / 100;
    const pain = ((i * 53) % 100) / 100;
    const trendClass = TREND_CLASSES[i % TREND_CLASSES.length]!;
    const topic = topics[i % topics.length]!;
    const id = await insertInsight(t.database.db, {
      score: ((i * 37) % 100) / 100,
      title: `${topic} #${i}`,
      idea: `${topic}, variant ${i}`,
      keywords: [topic.split(' ')[0]!.toLowerCase()],
      dimensionScores: { momentum, pain },
      trendClass,
    });
    fixtures.push({ id, momentum, pain, trendClass, topic });
  }
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: bearer(key) });

async function walk(url: string, limit = 7) {
  const seen: Array<Record<string, any>> = [];
  let next: string | null = null;
  do {
    const res = await get(`${url}&limit=${limit}${next ? `&cursor=${next}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    seen.push(...res.json().data);
    next = res.json().next_cursor;
  } while (next);
  return seen;
}

describe('sort by a dimension', () => {
  it.each(DIMENSIONS)('sort=%s walks every insight once, high first, unscored last', async (dimension) => {
    const rows = await walk(`/api/insights?sort=${dimension}`);
    expect(rows.map((r) => r.id).sort()).toEqual(fixtures.map((f) => f.id).sort());
    const values = rows.map((r) => r.dimension_scores[dimension] ?? -1);
    expect(values).toEqual([...values].sort((a, b) => b - a));
  });

  it('puts insights without a momentum score after every scored one', async () => {
    const rows = await walk('/api/insights?sort=momentum', 5);
    const firstNull = rows.findIndex((r) => r.dimension_scores.momentum === null);
    expect(firstNull).toBe(fixtures.filter((f) => f.momentum !== null).length);
    expect(rows.slice(firstNull).every((r) => r.dimension_scores.momentum === null)).toBe(true);
  });
});

describe('q= full-text search', () => {
  it('matches title, idea and keywords with English stemming, through the cursor, combined with filters', async () => {
    const invoices = await walk('/api/insights?q=invoice&sort=pain', 3);
    const expected = fixtures.filter((f) => f.topic.startsWith('Invoice'));
    expect(invoices.map((r) => r.id).sort()).toEqual(expected.map((f) => f.id).sort());
    const pains = invoices.map((r) => r.dimension_scores.pain);
    expect(pains).toEqual([...pains].sort((a, b) => b - a));

    const dogs = await walk('/api/insights?q=%22dog%20walking%22&trend_class=rising,peaked&sort=newest', 2);
    expect(dogs.map((r) => r.id).sort()).toEqual(
      fixtures
        .filter((f) => f.topic.startsWith('Dog') && ['rising', 'peaked'].includes(f.trendClass))
        .map((f) => f.id)
        .sort(),
    );
    expect((await get('/api/insights?q=zeppelin')).json()).toEqual({ data: [], next_cursor: null });
  });

  it('answers a blank or oversized q with a 400 problem', async () => {
    for (const url of ['/api/insights?q=%20%20', `/api/insights?q=${'a'.repeat(201)}`, '/api/insights?q=']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().invalid_params[0].name).toMatch(/q/);
    }
  });
});

describe('trend_class', () => {
  it('filters by one class or several, and every item carries its class and hit rate', async () => {
    for (const c of TREND_CLASSES) {
      const rows = await walk(`/api/insights?trend_class=${c}&sort=score`, 4);
      expect(rows.map((r) => r.id).sort(), c).toEqual(
        fixtures
          .filter((f) => f.trendClass === c)
          .map((f) => f.id)
          .sort(),
      );
      for (const r of rows) {
        expect(r.trend_class).toBe(c);
        expect(r.trend_class_hit_rate).toBe(BACKTEST.trendClasses[c].hit_rate);
      }
    }
  });

  it('shows the class, its rule, claim and hit rate on the insight', async () => {
    const rising = fixtures.find((f) => f.trendClass === 'rising')!;
    const body = (await get(`/api/insights/${rising.id}`)).json();
    expect(body.trend_class).toBe('rising');
    expect(body.trend_class_evidence).toEqual({
      rule: expect.stringMatching(/0\.73/),
      reason: 'fixture',
      claim: expect.any(String),
      hit_rate: BACKTEST.trendClasses.rising.hit_rate,
      base_rate: BACKTEST.trendClasses.rising.base_rate,
      methodology: '/api/methodology#trend-classes',
    });
    expect(body.links.methodology).toBe('/api/methodology');
  });
});

describe('400s name what is allowed', () => {
  it.each([
    ['/api/insights?sort=popularity', 'sort', ['score', 'overall', 'newest', 'oldest', ...DIMENSIONS]],
    ['/api/insights?trend_class=booming', 'trend_class', [...TREND_CLASSES]],
    ['/api/insights?trend_class=rising,booming', 'trend_class', [...TREND_CLASSES]],
    ['/api/insights/ins_00000000000000000000/trend-data?window=7d', 'window', ['30d', '90d', '12m', '5y']],
    ['/api/insights/ins_00000000000000000000/chart.svg?window=1y', 'window', ['30d', '90d', '12m', '5y']],
  ])('%s', async (url, name, allowed) => {
    const res = await get(url);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    const param = res.json().invalid_params[0];
    expect(param.name).toMatch(name);
    expect(param.allowed).toEqual(allowed);
    expect(res.json().detail).toContain(allowed.join(', '));
  });

  it('refuses a cursor made for another sort, and one carrying an impossible score', async () => {
    const first = (await get('/api/insights?sort=momentum&limit=2')).json();
    const other = await get(`/api/insights?sort=pain&cursor=${first.next_cursor}`);
    expect(other.statusCode).toBe(400);
    expect(other.json().detail).toMatch(/sort=momentum, not sort=pain/);
    const forged = Buffer.from(JSON.stringify(['momentum', 7, fixtures[0]!.id])).toString('base64url');
    expect((await get(`/api/insights?sort=momentum&cursor=${forged}`)).statusCode).toBe(400);
  });
});

describe('GET /api/methodology', () => {
  it('gives every dimension its formula and weight, and the backtest with its data and date', async () => {
    const res = await get('/api/methodology');
    expect(res.statusCode).toBe(200);
    const m = res.json();
    expect(Object.keys(m.dimensions).sort()).toEqual([...DIMENSIONS].sort());
    // The designed weights sum to 1; pain and intent weigh half of theirs until validated, and say so.
    expect(Object.values(m.overall.designed_weights as Record<string, number>).reduce((s, w) => s + w, 0)).toBeCloseTo(1, 10);
    expect(m.dimensions.pain).toMatchObject({
      weight: 0.075,
      experimental: true,
      why_experimental: expect.stringMatching(/not been validated .* on 30 phrases/),
    });
    expect(m.dimensions.demand).toMatchObject({ weight: 0.2, experimental: false });
    expect(m.validation).toMatchObject({
      dimensions: ['pain', 'intent'],
      required_phrases: 30,
      measured_phrases: 0,
      reproduce: expect.stringContaining('insights evidence collect'),
    });
    for (const d of Object.values(m.dimensions) as Array<{ formula: string }>) expect(d.formula.length).toBeGreaterThan(20);
    expect(m.measured_on).toBe('2026-11-23');
    expect(m.momentum.backtest).toMatchObject({
      data: expect.stringMatching(/466 real daily Google Trends series/),
      held_out: BACKTEST.momentum.held_out,
      reproduce: 'npm run bench:momentum',
    });
    expect(m.trend_classes.map((c: { class: string }) => c.class).sort()).toEqual([...TREND_CLASSES].sort());
    expect(m.trend_classes.find((c: { class: string }) => c.class === 'seasonal')).toMatchObject({
      hit_rate: null,
      note: expect.stringMatching(/242 days/),
    });
    // Pain and intent read today's evidence; how it agrees with the related-list evidence, and on how little data.
    expect(m.dimensions.pain.evidence).toMatch(/compared over 12 months, in one request/);
    expect(m.evidence_agreement).toMatchObject({ ...EVIDENCE_AGREEMENT, reproduce: 'npm run bench:evidence' });
  });
});
