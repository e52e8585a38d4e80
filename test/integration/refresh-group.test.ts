// A refresh group writes the members its answer served in one transaction,
// bumps the read-model version once, announces each moved score, and keeps the
// popularity it measured for a member it could not serve; a member it could not
// serve keeps its series until its own request answers.
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshGroupProcessor } from '../../jobs/refresh-group.job.js';
import { readReadModel } from '../../src/redis/read-model-version.js';
import type { TrendsGateway } from '../../src/providers/gateway.js';
import type { TrendsRequest } from '../../src/domain/trends/answers.js';
import type { TestDatabase } from '../support/database.js';
import { insertInsight } from '../support/fixtures.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';
import { replaceTrendPoints } from '../../src/insights/trend-point.repository.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
});
afterAll(() => stack?.close());

const day = (i: number) => new Date(Date.UTC(2026, 7, 25 + i)).toISOString().slice(0, 10);
/** One 90-day answer for five keywords: a, b and c with data, "tiny" at 2 of 100 (no precision), "gone" with none. */
function answer(keywords: string[]) {
  const shape: Record<string, (i: number) => number> = {
    a: (i) => 60 + Math.round(40 * Math.sin(i / 5)),
    b: (i) => 30 + (i % 7) * 5,
    c: (i) => 10 + (i % 3) * 10,
    tiny: (i) => (i % 2) + 1,
    gone: () => 0,
  };
  return {
    kind: 'interestOverTime' as const,
    keywords,
    points: Array.from({ length: 90 }, (_, i) => ({
      date: day(i),
      values: keywords.map((k) => shape[k]!(i)),
      hasData: keywords.map((k) => k !== 'gone'),
      isPartial: i === 89,
    })),
  };
}

describe('a refresh group', () => {
  it('writes what it served together, bumps the version once, and leaves the others as they were', async () => {
    const ids: Record<string, string> = {};
    for (const k of ['a', 'b', 'c', 'tiny', 'gone'])
      ids[k] = await insertInsight(database.db, { score: 0.5, keywords: [k], title: `Insight ${k}` });
    const previous = Array.from({ length: 30 }, (_, i) => ({ date: day(i), value: i }));
    await database.db.transaction().execute((trx) => replaceTrendPoints(trx, ids.gone!, previous, new Date('2026-11-01T00:00:00Z')));

    const asked: TrendsRequest[] = [];
    const gateway: TrendsGateway = {
      fetch: async (request) => {
        asked.push(request);
        return answer((request as { keywords: string[] }).keywords) as never;
      },
    };
    const announced: string[] = [];
    const enqueued: string[] = [];
    const before = await readReadModel(redis.redis, redis.keys);
    const process = refreshGroupProcessor({
      db: database.db,
      redis: redis.redis,
      redisKeys: redis.keys,
      trendsFor: () => gateway,
      provider: 'google',
      geo: 'US',
      announce: async (...eventIds) => void announced.push(...eventIds),
      ingest: {
        name: 'ingest',
        addBulk: async (jobs: Array<{ data: { insightId: string } }>) => void enqueued.push(...jobs.map((j) => j.data.insightId)),
      } as never,
    });
    const result = await process({ data: { insightIds: Object.values(ids), round: 2 }, name: 'refresh-group' } as unknown as Job);

    expect(asked).toHaveLength(1); // one request for the five
    expect(result).toMatchObject({ served: [ids.a, ids.b, ids.c], leftover: [ids.tiny, ids.gone] });
    for (const k of ['a', 'b', 'c']) {
      const points = await database.db.selectFrom('trend_points').select('value').where('insight_id', '=', ids[k]!).execute();
      expect(points, k).toHaveLength(31);
      expect(Math.max(...points.map((p) => p.value)), k).toBe(100); // rescaled to its own maximum
      const series = await database.db
        .selectFrom('insight_series')
        .select('points')
        .where('insight_id', '=', ids[k]!)
        .where('timeframe', '=', '90d')
        .executeTakeFirstOrThrow();
      expect(series.points).toHaveLength(90);
      expect(
        await database.db.selectFrom('forecasts').select('model').where('insight_id', '=', ids[k]!).executeTakeFirst(),
        k,
      ).toBeDefined();
    }
    // Those it could not serve keep their series and get a request of their own; the one it
    // measured keeps that measure (the one with no data has none to keep).
    const kept = await database.db
      .selectFrom('trend_points')
      .select(['date', 'value'])
      .where('insight_id', '=', ids.gone!)
      .orderBy('date')
      .execute();
    expect(kept).toEqual(previous);
    const levels = await database.db
      .selectFrom('insights')
      .select(['id', 'interest_level'])
      .where('id', 'in', [ids.tiny!, ids.gone!])
      .execute();
    expect(levels.find((l) => l.id === ids.tiny)!.interest_level).toBeGreaterThan(0);
    expect(levels.find((l) => l.id === ids.gone)!.interest_level).toBeNull();
    expect(enqueued).toEqual([ids.tiny, ids.gone]);
    // One insight.updated event per moved score, each announced; one version bump for the group.
    const events = await database.db
      .selectFrom('outbox_events')
      .select(['id', 'insight_id'])
      .where('type', '=', 'insight.updated')
      .execute();
    expect(events.map((e) => e.insight_id).sort()).toEqual([ids.a, ids.b, ids.c].sort());
    expect(announced.sort()).toEqual(events.map((e) => e.id).sort());
    const after = await readReadModel(redis.redis, redis.keys);
    expect(BigInt(after.version) - BigInt(before.version)).toBe(1n);
  });
});
