// The request log writes a URL's path and its query's parameter names, never their values: a query carries
// what a client searched for (a private idea's words), cursors and now and then a key (outside review of
// 2026-11-28). Requests through the real app and its logger: an /api search, a route not found, and an MCP
// search whose tool asks the API in-process (that inner request is logged too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingLogger } from '../support/account-pages.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';

const log = recordingLogger();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ logger: log.logger });
});
afterAll(() => t?.close());

/** Words no log line may carry: what the requests below searched for, and a cursor. */
const PRIVATE = ['quietlarkspur', 'velvetmarmot', 'cursorquasar', 'amberhalibut'];

describe('the request log', () => {
  it('logs the path and the query names of every request, never a query value', async () => {
    const key = await t.key('enterprise');
    const from = log.lines.length;
    const search = await t.app.inject({ url: `/api/insights?q=${PRIVATE[0]}%20plans&limit=5&cursor=${PRIVATE[2]}`, headers: bearer(key) });
    // A made-up cursor is refused (400): the request is logged all the same.
    expect(search.statusCode).toBe(400);
    expect((await t.app.inject({ url: `/nowhere?q=${PRIVATE[1]}` })).statusCode).toBe(404);
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_insights', arguments: { q: PRIVATE[3] } } };
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...bearer(key), accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: JSON.stringify(call),
    });
    expect(mcp.statusCode, mcp.body).toBe(200);
    const lines = log.lines.slice(from);
    for (const word of PRIVATE) expect(lines.filter((line) => line.includes(word))).toEqual([]);
    const urls = lines.map((line) => (JSON.parse(line) as { url?: string; msg?: string }).url ?? '');
    expect(urls).toContain('/api/insights?q=[redacted]&limit=[redacted]&cursor=[redacted]');
    expect(urls).toContain('/nowhere?q=[redacted]');
    // The MCP tool's own request of the API, made in-process with the words.
    expect(urls).toContain('/api/insights?q=[redacted]');
  });
});
