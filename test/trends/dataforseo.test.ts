// The DataForSEO provider against its contract: answers shaped as its docs
// describe them (test/fixtures/dataforseo, served over HTTP so the real client
// path reads them) parse into the normalised answers every provider returns;
// every documented status code is classified (wait, refused, changed shape);
// a shape its docs do not describe is never read as data; and the loopback
// DataForSEO that tests and benchmarks use answers in those same shapes.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyStatus } from '../../src/providers/dataforseo/client.js';
import { DataForSeoProvider } from '../../src/providers/dataforseo/provider.js';
import {
  MalformedResponseError,
  ProviderAccountError,
  ProviderUnavailableError,
  RateLimitedError,
  RefusedError,
} from '../../src/providers/contract.js';
import type { TrendsResponse } from '../../src/domain/trends/answers.js';
import {
  FAKE_LOGIN,
  FAKE_PASSWORD,
  startDataForSeoOnLoopback,
  type DataForSeoOnLoopback,
} from '../../scripts/lib/dataforseo-on-loopback.js';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/dataforseo', name), 'utf8');

/** Answers every request with the next (status, body); records what was asked. */
let answers: Array<[number, string]> = [];
const asked: Array<{ url: string; authorization: string | undefined; body: unknown }> = [];
let server: http.Server;
let url: string;
let fake: DataForSeoOnLoopback;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      asked.push({ url: req.url!, authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const [status, body] = answers.shift() ?? [500, ''];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake = await startDataForSeoOnLoopback();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fake.stop();
});

const provider = (apiUrl = url, password = 'pw', login = 'me') =>
  new DataForSeoProvider({ login, password, apiUrl, requestTimeoutMs: 5_000 }, () => new Date('2026-11-27T12:00:00Z'));

describe('answers as the docs describe them', () => {
  it('an explore task: the series (a period not over is partial, missing data has no data), the map, the related lists', async () => {
    answers = [[200, fixture('explore-live.json')]];
    const answer = (await provider().fetch({
      kind: 'explore',
      keywords: ['meal planner'],
      timeframe: '12m',
      geo: 'US',
      parts: ['series', 'mapCountry', 'relatedQueries', 'relatedTopics'],
    })) as Extract<TrendsResponse, { kind: 'explore' }>;
    const request = asked.at(-1)!;
    expect(request.url).toBe('/v3/keywords_data/google_trends/explore/live');
    expect(request.authorization).toBe(`Basic ${Buffer.from('me:pw').toString('base64')}`);
    expect(request.body).toEqual([
      {
        keywords: ['meal planner'],
        location_code: 2840,
        type: 'web',
        time_range: 'past_12_months',
        item_types: ['google_trends_graph', 'google_trends_map', 'google_trends_queries_list', 'google_trends_topics_list'],
        tag: expect.stringMatching(/^si-[0-9a-f]{16}$/),
      },
    ]);
    expect(answer.series!.points).toEqual([
      { date: '2026-11-16', values: [71], hasData: [true], isPartial: false },
      { date: '2026-11-23', values: [100], hasData: [true], isPartial: true },
      { date: '2026-11-30', values: [0], hasData: [false], isPartial: true },
    ]);
    expect(answer.mapCountry!.regions).toEqual([
      { geoCode: 'US-UT', geoName: 'Utah', values: [100], hasData: [true] },
      { geoCode: 'US-VT', geoName: 'Vermont', values: [0], hasData: [false] },
    ]);
    expect(answer.relatedQueries!.top.map((i) => [i.label, i.value])).toEqual([
      ['meal planner app', 100],
      ['free meal planner', 64],
    ]);
    expect(answer.relatedQueries!.rising[0]).toMatchObject({ label: 'ai meal planner', breakout: true, formattedValue: 'Breakout' });
    expect(answer.relatedQueries!.rising[1]).toMatchObject({ value: 190, formattedValue: '+190%', breakout: false });
    expect(answer.relatedTopics).toMatchObject({ top: [{ label: 'Meal', topic: { mid: '/m/0dxjn', type: 'Topic' } }], rising: [] });
    expect(answer.provenance).toEqual({
      provider: 'dataforseo',
      requests: 1,
      costUsd: 0.009,
      taskId: '11271534-1535-0216-0000-6a0c1f2b9e01',
    });
  });

  it('a search-volume task: monthly searches oldest first, cost per click, competition; too little data is null, not zero', async () => {
    answers = [[200, fixture('search-volume-live.json')]];
    const answer = await provider().fetch({
      kind: 'searchVolume',
      keywords: ['Meal planner', 'meal planner busy parents'],
      geo: 'US',
      language: 'en',
    });
    expect(asked.at(-1)!.body).toEqual([
      { keywords: ['meal planner', 'meal planner busy parents'], location_code: 2840, language_code: 'en', tag: expect.any(String) },
    ]);
    expect(answer).toMatchObject({
      kind: 'searchVolume',
      geo: 'US',
      location: { name: 'United States', code: 2840 },
      keywords: [
        {
          keyword: 'meal planner',
          monthlySearches: 33100,
          history: [
            { month: '2026-08', searches: 40500 },
            { month: '2026-09', searches: 33100 },
            { month: '2026-10', searches: 27100 },
          ],
          cpcUsd: 1.53,
          bidLowUsd: 0.61,
          bidHighUsd: 2.74,
          competition: 'HIGH',
          competitionIndex: 88,
        },
        { keyword: 'meal planner busy parents', monthlySearches: null, history: [], cpcUsd: null, competition: null },
      ],
      provenance: { provider: 'dataforseo', costUsd: 0.075 },
    });
  });

  it('a keyword Google Ads refuses (symbols, over 80 characters or 10 words) is left out rather than failing the task', async () => {
    answers = [[200, fixture('search-volume-live.json')]];
    await provider().fetch({
      kind: 'searchVolume',
      keywords: ['meal planner', 'meal planner busy parents', 'meal (planner)', 'a '.repeat(11)],
      geo: 'US',
      language: 'en',
    });
    expect((asked.at(-1)!.body as Array<{ keywords: string[] }>)[0]!.keywords).toEqual(['meal planner', 'meal planner busy parents']);
  });

  it('a failed task, a refused login: classified from the answer', async () => {
    answers = [[200, fixture('task-error-invalid-field.json')]];
    await expect(provider().fetch({ kind: 'searchVolume', keywords: ['meal planner'], geo: 'US', language: 'en' })).rejects.toThrow(
      RefusedError,
    );
    answers = [[401, fixture('unauthorized.json')]];
    const refused = provider().fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '90d', geo: '' });
    await expect(refused).rejects.toThrow(ProviderAccountError);
    await expect(refused).rejects.toThrow(/check DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD/);
  });

  it('a proxy in front of it answering 502 or 408 with a body of its own is its side (wait), a 403 the account; a top-level 20100 is an answer (found by review)', async () => {
    const ask = () => provider().fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '90d', geo: '' });
    answers = [[502, JSON.stringify({ message: 'Bad Gateway' })]];
    await expect(ask()).rejects.toThrow(ProviderUnavailableError);
    answers = [[408, '<html>timeout</html>']];
    await expect(ask()).rejects.toThrow(ProviderUnavailableError);
    answers = [[403, '<html>forbidden</html>']];
    await expect(ask()).rejects.toMatchObject({ name: 'ProviderAccountError', problem: 'credentials' });
    answers = [[404, '<html>no such page</html>']];
    await expect(ask()).rejects.toMatchObject({
      name: 'ProviderAccountError',
      problem: 'configuration',
      message: expect.stringMatching(/DATAFORSEO_API_URL/),
    });
    const created = JSON.parse(fixture('explore-live.json'));
    created.status_code = 20100;
    created.status_message = 'Task Created.';
    answers = [[200, JSON.stringify(created)]];
    await expect(ask()).resolves.toMatchObject({ kind: 'interestOverTime' });
  });

  it('a shape its docs do not describe is a changed shape, never data', async () => {
    const changed = JSON.parse(fixture('explore-live.json'));
    changed.tasks[0].result[0].items[0].data[0].values = ['71'];
    answers = [[200, JSON.stringify(changed)]];
    await expect(provider().fetch({ kind: 'interestOverTime', keywords: ['meal planner'], timeframe: '12m', geo: 'US' })).rejects.toThrow(
      MalformedResponseError,
    );
    answers = [[200, '<html>maintenance</html>']];
    await expect(provider().fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '12m', geo: '' })).rejects.toThrow(
      MalformedResponseError,
    );
  });

  it('a market it has no location code for is refused, with the list, not asked worldwide', async () => {
    await expect(provider().fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '12m', geo: 'US-CA' })).rejects.toThrow(
      /asks by country; US-CA is not one it knows/,
    );
  });
});

describe('every documented status code', () => {
  it.each([
    [40100, ProviderAccountError, 'credentials'],
    [40201, ProviderAccountError, 'credentials'],
    [40204, ProviderAccountError, 'credentials'],
    [40207, ProviderAccountError, 'credentials'],
    [40200, ProviderAccountError, 'balance'],
    [40203, ProviderAccountError, 'balance'],
    [40210, ProviderAccountError, 'balance'],
    [40202, RateLimitedError, undefined],
    [40209, RateLimitedError, undefined],
    [40205, RateLimitedError, undefined],
    [40101, ProviderUnavailableError, undefined],
    [40103, ProviderUnavailableError, undefined],
    [50000, ProviderUnavailableError, undefined],
    [50301, ProviderUnavailableError, undefined],
    [40501, RefusedError, undefined],
    [40503, RefusedError, undefined],
    [40006, RefusedError, undefined],
    [12345, MalformedResponseError, undefined],
  ] as const)('%i', (code, kind, problem) => {
    const error = classifyStatus(code, 'as documented', 'a test request');
    expect(error).toBeInstanceOf(kind);
    if (problem) expect((error as ProviderAccountError).problem).toBe(problem);
  });
  it('20000 and 20100 are answers', () => {
    expect(classifyStatus(20000, 'Ok.', 'x')).toBeNull();
    expect(classifyStatus(20100, 'Task Created.', 'x')).toBeNull();
  });
});

describe('the loopback DataForSEO answers in the documented shapes', () => {
  const onFake = () => provider(fake.url, FAKE_PASSWORD, FAKE_LOGIN);
  it('every request kind the provider makes parses through the same schemas', async () => {
    const p = onFake();
    const series = await p.fetch({ kind: 'interestOverTime', keywords: ['meal planner', 'weather'], timeframe: '90d', geo: 'US' });
    expect(series).toMatchObject({ kind: 'interestOverTime', keywords: ['meal planner', 'weather'] });
    expect((series as { points: unknown[] }).points).toHaveLength(91);
    for (const kind of ['relatedQueries', 'relatedTopics'] as const)
      expect(await p.fetch({ kind, keyword: 'meal planner', timeframe: '12m', geo: '' })).toMatchObject({ kind, top: expect.any(Array) });
    expect(
      await p.fetch({ kind: 'interestByRegion', keywords: ['meal planner'], timeframe: '12m', geo: '', resolution: 'COUNTRY' }),
    ).toMatchObject({
      kind: 'interestByRegion',
      regions: expect.arrayContaining([expect.objectContaining({ geoCode: 'US' })]),
    });
    expect(await p.fetch({ kind: 'searchVolume', keywords: ['meal planner'], geo: 'GB', language: 'en' })).toMatchObject({
      location: { name: 'United Kingdom', code: 2826 },
      keywords: [{ keyword: 'meal planner' }],
    });
    expect(fake.requests.every((r) => r.status === 200 && r.code === 20000)).toBe(true);
  });
  it('refuses a wrong password (401, 40100), money running out (402, 40200), its pace (40202) and fails a task when told', async () => {
    await expect(
      provider(fake.url, 'wrong', FAKE_LOGIN).fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '90d', geo: '' }),
    ).rejects.toThrow(ProviderAccountError);
    fake.balanceUsd = 0.001;
    await expect(onFake().fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '90d', geo: '' })).rejects.toMatchObject({
      problem: 'balance',
    });
    fake.balanceUsd = 10;
    fake.failNext(1, 40202);
    await expect(onFake().fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '90d', geo: '' })).rejects.toThrow(
      RateLimitedError,
    );
    fake.failNext(1, 50000);
    await expect(onFake().fetch({ kind: 'interestOverTime', keywords: ['x'], timeframe: '90d', geo: '' })).rejects.toThrow(
      ProviderUnavailableError,
    );
    expect(fake.requests.slice(-4).map((r) => [r.status, r.code])).toEqual([
      [401, 40100],
      [402, 40200],
      [200, 40202],
      [200, 50000],
    ]);
  });
});
