// A research run against Google as it answers in late 2026 completes all 40
// steps with at least 7 of 8 dimensions scored: through the real worker
// process and the real Google client, against the loopback Google (related
// queries through the embed flow, topics empty), and against the synthetic
// provider, which serves them the same way. On the loopback Google's noisy
// low-volume scenario, an OR-group above its phrase gives no score, with the
// reason.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { PROJECT_ROOT } from '../../src/config.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { familyShares, modifierRequest } from '../../src/domain/research/modifier-evidence.js';
import { timeRange } from '../../src/providers/google/provider.js';
import { runCli } from '../support/cli.js';
import type { TestDatabase } from '../support/database.js';
import { createTestStack, type TestStack } from '../support/stack.js';

/**
 * What is measured here is the evidence a run reads, not the pace: no pacing of our own, and a
 * loopback Google without its per-address budget (google-e2e.test.ts runs research at Google's pace).
 */
const UNPACED = { TRENDS_REQUESTS_PER_MINUTE: '0', TRENDS_EMBED_GAP_MS: '0' };
/** Phrases of the noisy low-volume scenario: Google's sample holds a few dozen searchers of each a year. */
const THIN = Array.from({ length: 40 }, (_, i) => `solar generator ${i}`);

let database: TestDatabase;
let stack: TestStack;
let google: GoogleOnLoopback;
let worker: ServiceProcess | undefined;
let env: Record<string, string>;
beforeAll(async () => {
  stack = await createTestStack();
  database = stack.database;
  google = await startGoogleOnLoopback({
    proxies: 1,
    requestsPerMinute: 0,
    embedMinGapMs: 0,
    world: { thinSample: Object.fromEntries(THIN.map((p) => [p, 30])) },
  });
  env = {
    ...stack.env,
    ...google.env,
    TRENDS_PROVIDER: 'google',
    ...UNPACED,
    TRENDS_WAIT_MS: '1000',
  };
  // One worker runs both kinds of run: each run names its provider (live Google goes through the trends queue).
  worker = new ServiceProcess('worker', env);
  await worker.ready;
});
afterAll(async () => {
  await worker?.kill('SIGTERM');
  await google.stop();
  await stack?.close();
});

async function stepsOf(runId: string): Promise<Record<string, { status: string; output: any }>> {
  const rows = await sql<{
    name: string;
    status: string;
    output: any;
  }>`select name, status, output from research_steps where run_id = ${runId}`.execute(database.db);
  return Object.fromEntries(rows.rows.map((r) => [r.name, r]));
}

async function research(idea: string, env: Record<string, string>) {
  const done = await runCli(['research', idea, '--wait', '--json'], env);
  expect(done.code, done.stderr).toBe(0);
  const out = JSON.parse(done.stdout.trim().split('\n').at(-1)!) as { run_id: string; status: string };
  expect(out.status).toBe('succeeded');
  const steps = await stepsOf(out.run_id);
  expect(Object.values(steps).filter((s) => s.status === 'done')).toHaveLength(40);
  const dimensions = steps.aggregate!.output.dimensions as Record<string, { score: number | null }>;
  return { steps, scored: Object.values(dimensions).filter((d) => d.score !== null).length };
}

describe('research against the loopback Google through the real client', () => {
  it('completes 40 steps with at least 7 of 8 dimensions, reading the related queries the embed flow lists and the modifier comparison Google answered', async () => {
    const { steps, scored } = await research('Meal planning app for busy parents', env);
    expect(scored).toBeGreaterThanOrEqual(7);
    expect(steps.related_queries_top!.output).toMatchObject({
      served: 'listed',
      provenance: { provider: 'google', via: 'embed', userType: 'USER_TYPE_EMBED' },
    });
    for (const name of ['related_topics_top', 'related_topics_rising'])
      expect(steps[name]!.output).toMatchObject({ served: 'empty', provenance: { via: 'embed' } });
    // The comparison went to Google with the OR syntax, and Google answered it; its token labelled the client.
    const comparison = steps.pain_signals!.output.modifier_comparison;
    expect(comparison).toMatchObject({
      outcome: 'served',
      provenance: { provider: 'google', via: 'explore', userType: 'USER_TYPE_SCRAPER' },
    });
    expect(comparison.keywords.slice(1).every((k: string) => k.includes(' + '))).toBe(true);
    expect(steps.score_pain!.output.evidence).toMatchObject({
      sources: 'modifier comparison + related queries',
      list_source: "related queries listed by Google's embed flow",
    });
    expect(google.google.log.filter((r) => r.kind === 'embed')).toHaveLength(2); // queries and topics, one embed page each
  }, 300_000);

  it('on the noisy low-volume scenario, an OR-group above its phrase gives no score: pain and intent say why, and the run completes', async () => {
    // The phrase whose comparison, as the loopback Google answers it today, puts a family above the phrase.
    const today = new Date();
    const time = timeRange('12m', today);
    const [start, end] = time.split(' ') as [string, string];
    const phrase = THIN.find((p) => {
      const request = modifierRequest(p)!;
      const rows = google.world.timeline(request.keywords, start, end, `${request.keywords.join('|')}|${time}|`);
      const shares = familyShares(request, {
        points: rows.map((r) => ({ date: '', values: r.values, hasData: r.hasData, isPartial: r.partial })),
      });
      return shares.ok && shares.shares.pain?.contradictory && shares.shares.intent?.contradictory;
    });
    expect(phrase, 'a phrase of the scenario with contradictory pain and intent families').toBeDefined();
    const done = await runCli(['research', `Rental of a ${phrase}`, '--keyword', phrase!, '--wait', '--json'], env);
    expect(done.code, done.stderr).toBe(0);
    const { run_id: runId } = JSON.parse(done.stdout.trim().split('\n').at(-1)!) as { run_id: string };
    const steps = await stepsOf(runId);
    expect(Object.values(steps).filter((s) => s.status === 'done')).toHaveLength(40);
    expect(steps.pain_signals!.output.modifiers).toMatchObject({ contradictory: true });
    for (const d of ['pain', 'intent']) {
      expect(steps[`score_${d}`]!.output, d).toMatchObject({
        score: null,
        explanation: expect.stringMatching(/contradictory numbers: the OR-group of the phrase's \w+ words averages [\d.]+× the phrase/),
        evidence: { modifier_contradictory: true },
      });
    }
  }, 300_000);
});

describe('research against the synthetic provider (related queries listed, topics empty, as Google serves them)', () => {
  it('completes 40 steps with at least 7 of 8 dimensions', async () => {
    const { steps, scored } = await research('Dog walking marketplace for apartments', { ...env, TRENDS_PROVIDER: 'synthetic' });
    expect(scored).toBeGreaterThanOrEqual(7);
    expect(steps.related_queries_top!.output.served).toBe('listed');
    for (const name of ['related_topics_top', 'related_topics_rising']) expect(steps[name]!.output.served).toBe('empty');
    for (const d of ['pain', 'intent', 'breadth', 'whitespace']) expect(steps[`score_${d}`]!.output.score, d).not.toBeNull();
  }, 300_000);
});

describe('validation evidence: insights evidence collect, then npm run bench:evidence on what it wrote', () => {
  it('collects, per phrase, the related queries the embed flow lists and the modifier comparison through the trends queue, and the bench fits on one half and checks on the other', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'evidence-'));
    try {
      const phrases = path.join(dir, 'phrases.txt');
      const output = path.join(dir, 'evidence.jsonl');
      await writeFile(
        phrases,
        '# a validation set (a real one has 30 or more)\nmeal kits\nsolar panels\n\ndog training\nMeal Kits\nhome espresso\n',
      );
      const before = google.google.log.filter((r) => r.kind === 'embed').length;
      const done = await runCli(['evidence', 'collect', '--phrases', phrases, '--output', output], env);
      expect(done.code, done.stderr).toBe(0);
      expect(done.stderr).toMatch(/evidence: 4 phrases, \d with related queries listed, 4 with the comparison served/);
      const lines = (await readFile(output, 'utf8'))
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as {
              phrase: string;
              related_queries: { served: string; provenance: { via?: string } };
              modifier_comparison: { outcome: string; keywords: string[]; points: unknown[] };
            },
        );
      expect(lines.map((l) => l.phrase)).toEqual(['meal kits', 'solar panels', 'dog training', 'home espresso']); // the duplicate once
      for (const line of lines) {
        expect(line.modifier_comparison).toMatchObject({
          outcome: 'served',
          keywords: [line.phrase, expect.stringContaining(' + '), expect.any(String), expect.any(String)],
        });
        expect(line.modifier_comparison.points.length).toBeGreaterThan(50);
      }
      expect(lines.some((l) => l.related_queries.served === 'listed' && l.related_queries.provenance.via === 'embed')).toBe(true);
      // Asked through Google's embed flow (the queue's workers keep its pace), one embed page per phrase.
      expect(google.google.log.filter((r) => r.kind === 'embed').length - before).toBe(4);

      const bench = await promisify(execFile)(process.execPath, [path.join(PROJECT_ROOT, 'dist/bench/evidence.bench.js'), output], {
        cwd: PROJECT_ROOT,
      });
      const result = JSON.parse(bench.stdout.trim().split('\n').at(-1)!) as {
        mode: string;
        phrases: number;
        usable: number;
        enough: boolean;
        families: Record<string, { fit_rows: number; check_rows: number }>;
      };
      expect(result).toMatchObject({ mode: 'collected', phrases: 4, enough: false });
      expect(result.usable).toBe(lines.filter((l) => l.related_queries.served === 'listed').length);
      expect(bench.stdout).toContain('pain and intent stay experimental');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('refuses a phrases file it cannot use, saying why', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'evidence-'));
    try {
      const phrases = path.join(dir, 'phrases.txt');
      await writeFile(phrases, "pizza\nmom's pizza\n");
      const bad = await runCli(['evidence', 'collect', '--phrases', phrases], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/line 2: an apostrophe \(Google Trends leaves queries with one out of its data/);
      await writeFile(phrases, 'pizza\nzero\u200bwidth\n');
      expect((await runCli(['evidence', 'collect', '--phrases', phrases], env)).stderr).toMatch(
        /line 2: a control, invisible or undecodable character/,
      );
      expect((await runCli(['evidence', 'collect', '--phrases', path.join(dir, 'none.txt')], env)).stderr).toMatch(
        /cannot read --phrases .*none\.txt: no such file/,
      );
      // An output that cannot be written fails before Google is asked anything.
      await writeFile(phrases, 'pizza\n');
      const asked = google.google.totalRequests();
      const unwritable = await runCli(
        ['evidence', 'collect', '--phrases', phrases, '--output', path.join(dir, 'no', 'such', 'out.jsonl')],
        env,
      );
      expect(unwritable.code).toBe(2);
      expect(unwritable.stderr).toMatch(/^insights: cannot write --output .*: no such folder\n$/);
      expect(google.google.totalRequests()).toBe(asked);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
