// The chart as a person sees it: rendered by headless Chromium (Debian's
// chromium; .ci/run installs it), screenshotted, and checked not to be blank.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forecast } from '../../src/domain/forecast/forecaster.js';
import { upsertForecast } from '../../src/insights/forecast.repository.js';
import { upsertInsight } from '../../src/insights/insight.repository.js';
import { replaceTrendPoints, upsertInsightSeries } from '../../src/insights/trend-point.repository.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { dimensionsWith } from '../support/fixtures.js';
import { demoSeries } from '../support/shared-data.js';
import { CHROMIUM, CHROMIUM_FLAGS } from '../support/chromium.js';

let t: TestApp;
let key: string;
const id = 'ins_chart000000000000000'; // 20 characters after the prefix, like every id

beforeAll(async () => {
  t = await createTestApp();
  key = await t.key('enterprise');
  const series = [...(await demoSeries()).values()][3]!.slice(-30);
  await upsertInsight(t.database.db, {
    id,
    idea_key: 'chart test',
    title: 'Chart test: a real GTAB series',
    idea: 'Chart test',
    primary_keyword: 'x',
    keywords: [],
    category: 'computers-electronics',
    source: 'research',
    overall_score: 0.6,
    confidence: 0.5,
    dimensions: dimensionsWith(0.6),
    summary: '',
    status: 'active',
  });
  await t.database.db.transaction().execute(async (trx) => {
    await replaceTrendPoints(trx, id, series, new Date());
    // The series the forecast is fitted on (research fits it on the 90 days; here the same 30): a chart
    // draws a forecast only on a scale it knows (forecastOnSeries).
    await upsertInsightSeries(trx, id, '90d', series, new Date());
    await upsertForecast(
      trx,
      id,
      forecast(
        series.map((p) => p.date),
        series.map((p) => p.value),
      ),
      new Date(),
    );
  });
});
afterAll(() => t.close());

describe('GET /api/insights/{id}/chart.svg', () => {
  it('is an SVG with title, dated axis, forecast bands and legend, also when served from cache', async () => {
    for (let i = 0; i < 2; i += 1) {
      const res = await t.app.inject({ url: `/api/insights/${id}/chart.svg`, headers: bearer(key) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(res.headers['x-cache']).toBe(i === 0 ? 'miss' : 'hit');
      expect(res.body).toMatch(/^<svg /);
      for (const text of ['Chart test: a real GTAB series', '80% interval', '95% interval', '7-day forecast', '30-day interest', 'Jul'])
        expect(res.body).toContain(text);
    }
    expect((await t.app.inject({ url: `/api/insights/${id}/chart.svg` })).statusCode).toBe(401);
  });

  it.skipIf(!CHROMIUM && process.env.CI !== 'true')(
    'renders in headless Chromium to a picture that is not blank',
    async () => {
      expect(CHROMIUM, 'chromium is not installed (apt-get install chromium)').toBeDefined();
      const res = await t.app.inject({ url: `/api/insights/${id}/chart.svg`, headers: bearer(key) });
      // Render only a real chart: Chromium's own error page for a bad document is not blank either.
      expect(res.statusCode).toBe(200);
      expect(res.body).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      const svg = res.body;
      const dir = mkdtempSync(path.join(os.tmpdir(), 'si-chart-'));
      const file = path.join(dir, 'chart.svg');
      const shot = path.join(dir, 'chart.png');
      writeFileSync(file, svg);
      execFileSync(
        CHROMIUM!,
        [
          '--headless',
          ...CHROMIUM_FLAGS,
          `--user-data-dir=${path.join(dir, 'profile')}`,
          `--screenshot=${shot}`,
          '--window-size=860,420',
          `file://${file}`,
        ],
        { stdio: 'ignore', timeout: 60_000 },
      );
      const png = PNG.sync.read(readFileSync(shot));
      let ink = 0;
      const colours = new Set<number>();
      for (let i = 0; i < png.data.length; i += 4) {
        const [r, g, b] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
        if (r < 235 || g < 235 || b < 235) ink += 1;
        colours.add(((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4));
      }
      const share = ink / (png.width * png.height);
      expect(png.width).toBe(860);
      expect(share).toBeGreaterThan(0.02); // lines, bands, text
      expect(colours.size).toBeGreaterThan(8); // the series, the bands, the axes are different colours
    },
    180_000,
  );
});

describe('insights show', () => {
  it('prints the scores and sparklines of the series and the forecast', async () => {
    const res = await runCli(['show', id], { ...t.database.env, REDIS_URL: t.redis.url, REDIS_PREFIX: t.redis.prefix });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/series +[▁▂▃▄▅▆▇█]{30}/);
    expect(res.stdout).toMatch(/forecast [▁▂▃▄▅▆▇█]{7}/);
    expect((await runCli(['show', 'ins_nope'], { ...t.database.env, REDIS_URL: t.redis.url })).code).toBe(2);
  });
});
