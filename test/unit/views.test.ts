// The transport-free views (src/views/) and the access decisions (src/api-access/): what the API, the pages,
// the CLI and an MCP server all answer, checked without HTTP.
import { describe, expect, it } from 'vitest';
import type { ApiKeyCache, ResolvedApiKey } from '../../src/api-keys/api-key-cache.js';
import { identify, identifyToken, type UnknownKeyThrottle } from '../../src/api-access/identify.js';
import { requireScope } from '../../src/api-access/scope.js';
import { Refusal } from '../../src/domain/refusal.js';
import { problemOfRefusal } from '../../src/http/api-guard/refusal.js';
import type { Comparison } from '../../src/research/comparison-service.js';
import type { RunRow, StepRow } from '../../src/research/run.repository.js';
import { RESEARCH_CHAINS } from '../../src/research/steps.js';
import { comparisonView, meanAndPeak } from '../../src/views/comparison.view.js';
import { insightListFilters, normaliseInsightListQuery, parseList } from '../../src/views/insight-list.view.js';
import { runStatesOf, runStepViews, runSummary } from '../../src/views/run.view.js';

const names = RESEARCH_CHAINS.current.steps.map((s) => s.name);

function run(over: Partial<RunRow> = {}): RunRow {
  return {
    id: 'run_x',
    idea: 'dog grooming van',
    idea_key: 'dog grooming van',
    keyword_hints: [],
    provider: 'synthetic',
    source: 'synthetic',
    started_by: 'api',
    status: 'running',
    chain: RESEARCH_CHAINS.current.id,
    next_step: 3,
    waiting_reason: null,
    insight_id: null,
    error: null,
    failed_step: null,
    created_at: new Date('2026-11-28T10:00:00Z'),
    updated_at: new Date('2026-11-28T10:00:00Z'),
    finished_at: null,
    discovery: null,
    account_id: 'acct_1',
    geo: 'US',
    language: 'en',
    visibility: 'private',
    cancelled_at: null,
    trace_id: null,
    ...over,
  };
}

function step(n: number, over: Partial<StepRow> = {}): StepRow {
  return {
    run_id: 'run_x',
    step: n,
    name: names[n - 1]!,
    status: 'done',
    input_hash: null,
    output: null,
    summary: `summary ${n}`,
    attempts: 1,
    duration_ms: 5,
    error: null,
    started_at: new Date('2026-11-28T10:00:01Z'),
    finished_at: new Date('2026-11-28T10:00:02Z'),
    ...over,
  };
}

describe('the run view', () => {
  it('summarises a run with its progress, its links and, once it failed, the failure in public words', () => {
    const s = runSummary(run());
    expect(s.progress).toEqual({ done: 2, total: names.length, current: names[2] });
    expect(s.links).toEqual({ self: '/api/research-runs/run_x', events: '/api/research-runs/run_x/events', insight: null });
    const failed = runSummary(
      run({ status: 'failed', failed_step: 3, error: 'Google answered 429 at https://trends.google.com/x?token=secret' }),
    );
    expect(failed.error).toMatch(new RegExp(`^step 3 \\(${names[2]}\\) failed: `));
    expect(failed.error).not.toContain('secret');
    expect(failed.progress.current).toBeNull();
  });

  it("lists every step of the run's chain: recorded rows by name, the rest by the run's state; errors public unless for an operator", () => {
    const rows = [step(1), step(2, { status: 'failed', summary: null, error: 'Error: connect ECONNREFUSED 10.0.0.1:443' })];
    const shown = runStepViews(run({ next_step: 2 }), rows);
    expect(shown).toHaveLength(names.length);
    expect(shown[0]).toMatchObject({ step: 1, name: names[0], status: 'done', attempts: 1, summary: 'summary 1', error: null });
    expect(shown[1]!.status).toBe('failed');
    expect(shown[1]!.error).not.toContain('10.0.0.1');
    expect(shown[2]).toMatchObject({ step: 3, status: 'pending', attempts: 0, duration_ms: null, started_at: null });
    expect(runStepViews(run({ next_step: 2 }), rows, 'operator')[1]!.error).toBe('Error: connect ECONNREFUSED 10.0.0.1:443');
  });

  it('reads a state filter as a set and refuses an unknown state naming the allowed ones', () => {
    expect(runStatesOf('failed, queued,failed')).toEqual(['failed', 'queued']);
    expect(runStatesOf(undefined)).toBeUndefined();
    const refusal = catchRefusal(() => runStatesOf('done'));
    expect(refusal.kind).toBe('invalidParameter');
    expect(refusal.facts.param).toMatchObject({ name: 'state', reason: 'has an unknown value "done"' });
  });
});

describe('the insight list query', () => {
  it('writes one spelling of each filter (sorted, once each, spacing plain) before the cache keys on it', () => {
    const q: Record<string, unknown> = { category: 'travel,finance,travel', geo: 'us', q: '  dog   van ', trend_class: 'rising' };
    normaliseInsightListQuery(q);
    expect(q).toEqual({ category: 'finance,travel', geo: 'US', q: 'dog van', trend_class: 'rising' });
  });

  it('refuses a blank search, an unknown category and a cursor it did not write, each naming its parameter', () => {
    expect(catchRefusal(() => insightListFilters({ limit: 20, sort: 'score', q: '   ' })).facts.param?.name).toBe('q');
    const category = catchRefusal(() => parseList('category', 'pets,nonsense', ['pets', 'travel']));
    expect(category.message).toBe('category has an unknown value "nonsense" (allowed: pets, travel)');
    expect(catchRefusal(() => insightListFilters({ limit: 20, sort: 'score', cursor: 'garbage' })).facts.param?.name).toBe('cursor');
    expect(insightListFilters({ limit: 5, sort: 'newest', geo: 'de', category: 'travel' })).toMatchObject({
      limit: 5,
      sort: 'newest',
      geo: 'DE',
      categories: ['travel'],
    });
  });
});

describe('the comparison view', () => {
  it("gives each idea its mean and peak on the shared scale, in the ideas' order", () => {
    expect(meanAndPeak([])).toEqual({ mean: null, peak: null });
    expect(meanAndPeak([1, 2, 2])).toEqual({ mean: 1.7, peak: 2 });
    const insight = {
      id: 'ins_a',
      updated_at: new Date('2026-11-01T00:00:00Z'),
      provider: 'synthetic',
      source: 'synthetic',
      data_as_of: '2026-10-31',
      overall_score: 0.5,
      confidence: 0.8,
      dimension_scores: {},
    };
    const comparison = {
      kind: 'done',
      geo: 'US',
      provider: 'synthetic',
      ideas: [
        { idea: 'a', phrase: 'a', insight },
        { idea: 'b', phrase: 'b', insight: { ...insight, id: 'ins_b' } },
      ],
      series: {
        points: [
          { date: '2026-01-04', values: [10, 100], isPartial: false },
          { date: '2026-01-11', values: [20, 50], isPartial: true },
        ],
      },
    } as unknown as Comparison;
    const view = comparisonView(comparison, 'US').data;
    expect(view.provenance).toBe('simulated');
    expect(view.ideas.map((i) => [i.insight_id, i.mean, i.peak])).toEqual([
      ['ins_a', 15, 20],
      ['ins_b', 75, 100],
    ]);
    expect(view.series[1]).toEqual({ date: '2026-01-11', values: [20, 50], is_partial: true });
  });
});

function catchRefusal(f: () => unknown): Refusal {
  try {
    f();
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('the access decisions', () => {
  const key: ResolvedApiKey = {
    id: 'key_1',
    name: 'k',
    accountId: 'acct_1',
    accountName: 'A',
    plan: 'free',
    status: 'active',
    expiresAt: null,
    scopes: ['insights:read'],
  };
  const token = 'not-a-key';
  const throttle: UnknownKeyThrottle = { take: () => 0, refund: () => {} };
  const cache = (cached: ResolvedApiKey | undefined) =>
    ({
      peek: () => cached,
      wouldLookUp: () => false,
      isKnown: () => true,
      isKnownAfterRead: async () => true,
      resolve: async () => cached ?? null,
    }) as unknown as ApiKeyCache;

  it('refuses a missing or malformed Authorization header before any lookup, as the API says it', () => {
    const deps = { apiKeys: cache(key), failedAuth: throttle };
    expect(catchRefusal(() => identify(deps, undefined, '127.0.0.1')).message).toBe('Send your API key as "Authorization: Bearer <key>".');
    expect(catchRefusal(() => identify(deps, 'Basic abc', '127.0.0.1')).message).toBe('The Authorization header must be "Bearer <key>".');
    const garbage = catchRefusal(() => identifyToken(deps, token, '127.0.0.1'));
    expect(garbage.kind).toBe('unauthorized');
    const problem = problemOfRefusal(garbage);
    expect(problem.body.status).toBe(401);
    expect(problem.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('names the scope a key lacks and the action that needs it, and lets a key with it through', () => {
    const refusal = catchRefusal(() => requireScope(key, 'research:write', 'the tool research_idea'));
    expect(refusal.kind).toBe('missingScope');
    expect(refusal.message).toContain('lacks the scope research:write that the tool research_idea needs; it has insights:read.');
    expect(problemOfRefusal(refusal).body).toMatchObject({ type: '/problems/missing-scope', status: 403 });
    expect(() => requireScope(key, 'insights:read', 'GET /api/insights')).not.toThrow();
    expect(() => requireScope(key, null, 'GET /api/usage')).not.toThrow();
  });

  it('gives a refusal with a wait its Retry-After, and an invalid parameter its invalid_params', () => {
    const problem = problemOfRefusal(new Refusal('quotaExceeded', 'spent', { retryAfterSeconds: 42 }));
    expect(problem.headers).toEqual({ 'retry-after': '42' });
    expect(problem.body.status).toBe(429);
    const param = problemOfRefusal(catchRefusal(() => runStatesOf('x')));
    expect(param.body.invalid_params).toEqual([{ name: 'state', reason: 'has an unknown value "x"', allowed: expect.any(Array) }]);
  });
});
