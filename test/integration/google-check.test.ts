// `insights google check` against the loopback Google, through a CONNECT proxy
// as in production: each kind the product sends, how Google answered it and
// its latency; exit 1 when a kind research or discovery needs is broken.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { runCli } from '../support/cli.js';

let g: GoogleOnLoopback;
beforeAll(async () => {
  g = await startGoogleOnLoopback({ proxies: 1, requestsPerMinute: 0 });
});
afterAll(() => g.stop());
beforeEach(() => {
  g.google.blockAll(false);
  g.google.answerWith('multiline', undefined);
});

interface Checked {
  kinds: Array<{ kind: string; outcome: string; ms: number | null; neededBy: string; broken: boolean; detail: string }>;
  broken: string[];
  route: string;
  geo: string;
}
const check = async (...args: string[]) => {
  const result = await runCli(['google', 'check', ...args], { ...g.env });
  return { ...result, json: args.includes('--json') && result.stdout ? (JSON.parse(result.stdout) as Checked) : undefined };
};

describe('insights google check', () => {
  it('reports each kind as Google answers it today, with its latency; empty related lists are expected, not broken', async () => {
    const { code, json, stderr } = await check('--geo', 'US', '--json');
    expect(code, stderr).toBe(0);
    expect(json!.route).toBe(new URL(g.proxies[0]!.url).host);
    const byKind = Object.fromEntries(json!.kinds.map((k) => [k.kind, k]));
    expect(Object.keys(byKind)).toEqual(['cookie_page', 'explore', 'multiline', 'comparedgeo', 'relatedsearches', 'autocomplete', 'trending_rss']);
    for (const kind of ['cookie_page', 'explore', 'multiline', 'comparedgeo', 'trending_rss']) expect(byKind[kind]).toMatchObject({ outcome: 'served', broken: false, ms: expect.any(Number) });
    expect(byKind.relatedsearches).toMatchObject({ outcome: 'empty', broken: false, detail: expect.stringMatching(/expected: Google serves automated clients empty related lists/) });
    expect(byKind.trending_rss).toMatchObject({ neededBy: 'discovery', detail: '20 trending searches' });
    expect(json!.broken).toEqual([]);

    const human = await check();
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/relatedsearches\s+empty\s+\d+\s+research\s+ok/);
    expect(human.stdout).toContain('Every kind research and discovery need answers as expected.');
  });

  it('exits 1 and names the kind when Google answers one in a shape it does not know', async () => {
    g.google.answerWith('multiline', { status: 200, body: `)]}',\n{"default":{"timeline":[]}}` });
    const { code, json } = await check('--json');
    expect(code).toBe(1);
    expect(json!.broken).toEqual(['multiline']);
    expect(json!.kinds.find((k) => k.kind === 'multiline')).toMatchObject({ outcome: 'changed_shape', broken: true, detail: expect.stringMatching(/no default.timelineData array/) });
    const human = await check();
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/multiline\s+changed shape\s+\d+\s+research\s+BROKEN/);
    expect(human.stdout).toContain('BROKEN: multiline.');
  });

  it('stops at a block: the page is blocked and nothing else is asked (asking would only lengthen the block)', async () => {
    g.google.blockAll(true);
    const before = g.google.totalRequests();
    const { code, json } = await check('--json');
    expect(code).toBe(1);
    expect(json!.kinds.map((k) => k.outcome)).toEqual(['blocked', 'not_asked', 'not_asked', 'not_asked', 'not_asked', 'not_asked', 'not_asked']);
    expect(g.google.totalRequests() - before).toBe(1);
  });

  it('refuses a bad country with a usage error', async () => {
    const { code, stderr } = await check('--geo', 'USA');
    expect(code).toBe(2);
    expect(stderr).toMatch(/--geo must be a two-letter country code such as US/);
  });
});
