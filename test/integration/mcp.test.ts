// The MCP server as an assistant uses it: the SDK's own client over streamable HTTP at /mcp on a listening
// app, and over stdio spawning `insights mcp` (the built CLI) against that app, each through every tool and
// resource: the tools listed, a search, two synthetic research runs followed to their end with progress,
// their insight, series, forecast, run, comparison, usage, the report and the CSV list as resources; and
// the refusals an assistant must read (a key without research:write, a Free key past its quota).
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { generateApiKey } from '../../src/domain/api-key.js';
import { loadConfig, NO_ENV_FILE, PROJECT_ROOT } from '../../src/config.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { insertInsight } from '../support/fixtures.js';
import { testResources } from '../support/redis.js';
import { startTestWorkers } from '../support/services.js';

let t: TestApp;
let pipeline: Pipeline;
let base: string;
let fixtureId: string;

beforeAll(async () => {
  t = await createTestApp({ research: {} });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const config = loadConfig({ REDIS_PREFIX: t.redis.prefix, TRENDS_PROVIDER: 'synthetic', WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey });
  pipeline = await startTestWorkers(testResources(t.database, t.redis), config, pino({ level: 'silent' }));
  fixtureId = await insertInsight(t.database.db, { score: 0.7, title: 'Mobile dog grooming van', idea: 'mobile dog grooming van' });
}, 120_000);
afterAll(async () => {
  await pipeline?.close();
  await t?.close();
});

const TRANSPORTS = {
  'streamable HTTP at /mcp': (key: string) =>
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(key) } }),
  'stdio through insights mcp': (key: string) =>
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(PROJECT_ROOT, 'bin/insights.js'), 'mcp'],
      // No .env: the process sees only what the test gives it.
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ENV_FILE: NO_ENV_FILE, INSIGHTS_URL: base, INSIGHTS_KEY: key },
      cwd: PROJECT_ROOT,
      stderr: 'pipe',
    }),
} as const;

const TOOLS = [
  'compare_ideas',
  'get_forecast',
  'get_insight',
  'get_research_run',
  'get_trend_data',
  'get_usage',
  'research_idea',
  'search_insights',
];

async function connected(transport: keyof typeof TRANSPORTS, key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(TRANSPORTS[transport](key));
  return client;
}

/** A resource's text (every resource here is text: Markdown or CSV). */
function resourceText(read: ReadResourceResult): string {
  const first = read.contents[0];
  const text = first && 'text' in first ? first.text : undefined;
  if (typeof text !== 'string') throw new Error(`expected a text resource, got ${JSON.stringify(read.contents)}`);
  return text;
}

/** A tool's answer, its first text as JSON (a success) or as the refusal's sentence (a tool error). */
function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error(`expected text, got ${JSON.stringify(result.content)}`);
  return first.text;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return JSON.parse(textOf(result)) as Record<string, any>;
}

/** research_idea with a progressToken: followed to its end, each progress notification kept. */
async function researched(client: Client, idea: string) {
  const progress: Progress[] = [];
  const result = (await client.callTool({ name: 'research_idea', arguments: { idea, geo: 'US' } }, undefined, {
    onprogress: (p) => progress.push(p),
    resetTimeoutOnProgress: true,
    timeout: 120_000,
  })) as CallToolResult;
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return { answer: JSON.parse(textOf(result)) as Record<string, any>, progress };
}

describe.each(Object.keys(TRANSPORTS) as Array<keyof typeof TRANSPORTS>)('the MCP server over %s', (transport) => {
  it('lists its tools, each saying what its numbers rest on, and finds insights', async () => {
    const client = await connected(transport, await t.key('enterprise'));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      const search = tools.find((tool) => tool.name === 'search_insights')!;
      expect(search.description).toMatch(/simulated/);
      expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(['q', 'geo', 'category', 'min_score', 'sort']),
      );

      const found = await call(client, 'search_insights', { q: 'dog grooming', limit: 5 });
      expect(found.data.map((insight: { id: string }) => insight.id)).toContain(fixtureId);
      expect(found.data[0]).toHaveProperty('provenance.kind');

      const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
      expect(templates).toContain('insights://insights/{id}/report');
      const csv = await client.readResource({ uri: 'insights://insights.csv' });
      expect(csv.contents[0]).toMatchObject({ mimeType: 'text/csv' });
      const lines = resourceText(csv).trim().split(/\r?\n/);
      expect(lines[0]).toMatch(/^id,/);
      expect(lines.some((line) => line.startsWith(`${fixtureId},`))).toBe(true);
      const filtered = await client.readResource({ uri: 'insights://insights.csv?q=grooming&limit=1' });
      expect(resourceText(filtered).trim().split(/\r?\n/)).toHaveLength(2);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('researches new ideas to their end with progress, and reads every view of them', async () => {
    const { key } = await t.researchKey('free');
    const client = await connected(transport, key);
    try {
      const ideas = [`Tide tables for kayak anglers ${transport}`, `Sourdough starter delivery ${transport}`];
      const first = await researched(client, ideas[0]!);
      expect(first.answer).toMatchObject({ ended: true, data: { status: 'succeeded', progress: { done: 40, total: 40 } } });
      // Steps done, rising. The SDK's client handles a notification a microtask after reading it and drops one
      // whose request has been answered meanwhile, so those that arrive with the answer may not all be seen.
      const steps = first.progress.map((p) => p.progress);
      expect(steps.length).toBeGreaterThan(0);
      expect(steps).toEqual([...steps].sort((a, b) => a - b));
      expect(new Set(steps).size).toBe(steps.length);
      expect(steps.at(-1)).toBeLessThanOrEqual(40);
      for (const p of first.progress) expect(p).toMatchObject({ total: 40, message: expect.stringMatching(/step \d+ of 40 done/) });
      const insightId = first.answer.data.insight_id as string;

      const report = await client.readResource({ uri: `insights://insights/${insightId}/report` });
      expect(report.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
      expect(resourceText(report)).toMatch(/tide tables for kayak anglers/i);
      expect(resourceText(report)).toMatch(/simulated/i);

      const insight = await call(client, 'get_insight', { id: insightId });
      expect(insight).toMatchObject({ id: insightId, provenance: { kind: 'simulated' }, visibility: 'private' });
      expect(insight.verdict.text).toEqual(expect.any(String));
      const series = await call(client, 'get_trend_data', { id: insightId, window: '12m' });
      expect(series.interval).toBe('week');
      expect(series.data.length).toBeGreaterThan(0);
      const forecast = await call(client, 'get_forecast', { id: insightId });
      expect(typeof forecast.withheld === 'boolean' || Array.isArray(forecast.points)).toBe(true);
      const run = await call(client, 'get_research_run', { id: first.answer.data.id });
      expect(run.data).toMatchObject({ status: 'succeeded', insight_id: insightId });
      expect(run.data.steps).toHaveLength(40);

      // Asked again without a progressToken: answered at once, with the insight researched (nothing spent).
      const again = await call(client, 'research_idea', { idea: ideas[0]!, geo: 'US' });
      expect(again).toMatchObject({ reused: true, data: { id: insightId } });

      const second = await researched(client, ideas[1]!);
      expect(second.answer.data.status).toBe('succeeded');
      const compared = await call(client, 'compare_ideas', { ideas, geo: 'US' });
      expect(compared.data.ideas.map((i: { insight_id: string }) => i.insight_id)).toEqual([insightId, second.answer.data.insight_id]);

      // Two runs and the day's first ask of this comparison: the Free allowance of 3, spent; the reused idea cost nothing.
      const usage = await call(client, 'get_usage');
      expect(usage.data).toMatchObject({ plan: 'free', research: { limit: 3, used: 3, remaining: 0 } });
    } finally {
      await client.close();
    }
  }, 240_000);

  it('refuses research to a key without research:write, naming the scope', async () => {
    const client = await connected(transport, await t.key('free'));
    try {
      const result = (await client.callTool({ name: 'research_idea', arguments: { idea: 'Mobile dog grooming van' } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/\/problems\/missing-scope/);
      expect(textOf(result)).toMatch(/research:write/);
      const compared = (await client.callTool({ name: 'compare_ideas', arguments: { ideas: ['a', 'b'] } })) as CallToolResult;
      expect(compared.isError).toBe(true);
      expect(textOf(compared)).toMatch(/\/problems\/missing-scope.*research:write/);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("answers a Free key past its day's quota with the quota error, for tools and resources alike", async () => {
    const { key } = await createApiKey(t.database.db, `mcp quota ${transport}`, 'free');
    for (let i = 0; i < 100; i += 1) expect((await t.app.inject({ url: '/api/categories', headers: bearer(key) })).statusCode).toBe(200);
    const client = await connected(transport, key);
    try {
      const result = (await client.callTool({ name: 'search_insights', arguments: {} })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/\/problems\/quota-exceeded/);
      expect(JSON.parse((result.content[1] as { text: string }).text)).toMatchObject({ type: '/problems/quota-exceeded', status: 429 });
      await expect(client.readResource({ uri: `insights://insights/${fixtureId}/report` })).rejects.toThrow(/\/problems\/quota-exceeded/);
      // The usage tool still answers (as /api/usage does), and says so.
      expect((await call(client, 'get_usage')).data).toMatchObject({ limit: 100, used: 100, remaining: 0 });
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('POST /mcp itself', () => {
  it('counts unknown keys guessed at /mcp and at /api in one budget per client', async () => {
    const mcpHeaders = (key: string) => ({
      ...bearer(key),
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    });
    const ask = {
      api: (address: string) => t.app.inject({ url: '/api/insights', headers: bearer(generateApiKey()), remoteAddress: address }),
      mcp: (address: string) =>
        t.app.inject({ method: 'POST', url: '/mcp', headers: mcpHeaders(generateApiKey()), payload: '{}', remoteAddress: address }),
    };
    // One door's budget spent (a few dozen guesses at most), then a guess at the other door from the same client.
    for (const [spent, other, address] of [
      ['api', 'mcp', '203.0.113.41'],
      ['mcp', 'api', '203.0.113.42'],
    ] as const) {
      let throttled = false;
      for (let i = 0; i < 100 && !throttled; i += 1) throttled = (await ask[spent](address)).statusCode === 429;
      expect(throttled, `${spent} throttles guesses`).toBe(true);
      const next = await ask[other](address);
      expect(next.statusCode, `${other} after ${spent}: ${next.body}`).toBe(429);
      expect(next.json()).toMatchObject({ type: '/problems/too-many-failed-authentications' });
      expect(Number(next.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('refuses a request without a valid key as the API does, and answers other methods 405', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const anonymous = await t.app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify(initialize) });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await t.app.inject({ method: 'POST', url: '/mcp', headers: { ...headers, authorization: 'Bearer nope' }, payload: '{}' });
    expect(wrong.statusCode).toBe(401);
    const key = await t.key();
    expect((await t.app.inject({ method: 'GET', url: '/mcp', headers: bearer(key) })).statusCode).toBe(405);
    // Bad input with a good key: a 4xx, never a 500 (broken JSON, no JSON-RPC, an Accept the transport cannot answer).
    const asKey = { ...headers, ...bearer(key) };
    const cases = [
      [asKey, '{"jsonrpc": '],
      [asKey, '{"hello": "world"}'],
      [{ ...asKey, 'content-type': 'text/plain' }, JSON.stringify(initialize)],
      [{ ...asKey, accept: 'text/html' }, JSON.stringify(initialize)],
    ] as const;
    const answers = await Promise.all(
      cases.map(([requestHeaders, payload]) => t.app.inject({ method: 'POST', url: '/mcp', headers: requestHeaders, payload })),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(
      statuses.every((status) => status >= 400 && status < 500),
      `${statuses.join(', ')}: ${answers.map((a) => a.body).join(' | ')}`,
    ).toBe(true);
  });
});
