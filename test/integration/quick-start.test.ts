// The README's quick start, run as a newcomer would on a first run: every
// shell command of its section (npm start with nothing configured, the curl
// lines, the replay research), and the commands npm start itself prints. A
// broken command fails here. `npm test` is the one command not run: it is what
// runs this file.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_ENV_FILE, PROJECT_ROOT } from '../../src/config.js';
import { DEMO_IDEAS } from '../../src/demo/demo-research.js';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { until } from '../support/pipeline.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

const run = promisify(execFile);
let dataDir: string;
let redis: TestRedis; // only for its key prefix, and to remove what npm start wrote under it
let env: Record<string, string>;
let start: ChildProcess | undefined;
let served: string | undefined; // the API's base URL npm start printed
const printed: string[] = [];

/** The quick start's shell commands, line by line, as the README has them. */
async function quickStartCommands(): Promise<string[]> {
  const readme = await readFile(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const from = readme.indexOf('## Quick start');
  const section = readme.slice(from, readme.indexOf('\n## ', from + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

/** A command as the user types it, in a shell, with what the quick start needs and nothing configured. */
function shell(command: string, extraEnv: Record<string, string> = {}) {
  return run('bash', ['--noprofile', '--norc', '-c', command], {
    cwd: PROJECT_ROOT,
    env: { ...env, ...extraEnv },
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'si-quick-start-'));
  redis = await createTestRedis();
  // Nothing configured, as on a fresh machine: no DATABASE_URL (the embedded Postgres), no REDIS_URL
  // (the local Redis). Only a data folder of its own (a first run), a key prefix of its own and a free port.
  // ENV_FILE: a .env on the developer's machine must not configure this "nothing configured" run.
  // OVERLOAD_MAX_EVENT_LOOP_DELAY_MS=0: this file runs beside the rest of the suite on 2 cores, where
  // npm start's web process rightly shed a request with 503 (event loop 601 ms behind) in one
  // fresh-clone run; shedding has tests of its own, and is not what this one is about.
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dataDir,
    DATA_DIR: dataDir,
    REDIS_PREFIX: redis.prefix,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ENV_FILE: NO_ENV_FILE,
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  };
});
afterAll(async () => {
  if (start?.pid && start.exitCode === null) {
    const exited = new Promise((r) => start!.once('exit', r));
    process.kill(-start.pid, 'SIGTERM');
    await exited;
  }
  await redis?.destroy();
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe("the README's quick start", () => {
  it('runs every command, and what npm start prints works', async () => {
    const commands = await quickStartCommands();
    expect(commands[0]).toBe('npm start');
    expect(commands).toContain('npm test');

    // npm start: ready when it has printed its curl line.
    start = spawn('bash', ['--noprofile', '--norc', '-c', 'npm start'], {
      cwd: PROJECT_ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ready = new Promise<void>((resolve, reject) => {
      createInterface({ input: start!.stdout! }).on('line', (line) => {
        printed.push(line);
        if (line.trim().startsWith('curl ')) resolve();
      });
      createInterface({ input: start!.stderr! }).on('line', (line) => printed.push(line));
      start!.once('exit', (code) => reject(new Error(`npm start exited (${code}) before it was ready:\n${printed.join('\n')}`)));
    });
    await ready;
    const output = printed.join('\n');
    const key = /sik_[A-Za-z0-9]+/.exec(output)![0];
    const url = /API:\s+(http:\/\/[\d.:]+)\/api\/insights/.exec(output)![1]!;
    served = url;
    // Beside the key, the one-time link that makes the development owner of the account pages.
    expect(output).toMatch(new RegExp(`${url.replace(/[.]/g, '\\.')}/account/invite/[A-Za-z0-9_-]{43}`));
    expect(output).toMatch(/simulated world/);
    expect(output).toMatch(/never live Google data/);
    // The demo the banner announces is what the API serves: that many named topics, from the repository's own data.
    const announced = Number(/Recorded:\s+real US Google Trends series of 2020 for (\d+) named topics/.exec(output)?.[1]);
    expect(announced).toBeGreaterThanOrEqual(40);
    const demoList = await fetch(`${url}/api/insights?source=recorded-series&limit=100`, { headers: { authorization: `Bearer ${key}` } });
    const demoBody = await demoList.text();
    expect(demoList.status, `GET /api/insights?source=recorded-series answered ${demoList.status}: ${demoBody}`).toBe(200);
    const demo = JSON.parse(demoBody) as { data: Array<{ title: string }> };
    expect(demo.data).toHaveLength(announced);
    expect(demo.data.filter((i) => /^Google topic/.test(i.title))).toEqual([]);

    // The curl line npm start printed, as printed.
    const tryIt = printed.find((l) => l.trim().startsWith('curl '))!.trim();
    const listed = JSON.parse((await shell(tryIt)).stdout) as { data: Array<{ title: string }> };
    expect(listed.data).toHaveLength(3);
    expect(listed.data.every((i) => !/^Google topic/.test(i.title))).toBe(true); // named topics

    // The commands it prints for the demo research.
    const runsList = printed.map((l) => l.trim()).find((l) => l.startsWith('npx insights runs list'))!;
    await until(
      async () => (await shell(runsList)).stdout,
      (out) => (out.match(/succeeded\s+40\/40\s+synthetic/g) ?? []).length === DEMO_IDEAS.length,
      300_000,
      'the demo runs',
    );
    // The catalogue leads with the named startup ideas, labelled simulated; no search phrase is a Google topic id.
    const catalogue = (await (await fetch(`${url}/api/insights?limit=100`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      data: Array<{ title: string; idea: string; primary_keyword: string; provenance: { kind: string } }>;
    };
    expect(
      catalogue.data
        .slice(0, DEMO_IDEAS.length)
        .map((i) => i.title)
        .sort(),
    ).toEqual(DEMO_IDEAS.map((idea) => `${idea} (simulated)`).sort());
    expect(catalogue.data.filter((i) => /^\/[mg]\//.test(i.primary_keyword))).toEqual([]);

    for (const command of commands.slice(1)) {
      if (command === 'npm test') continue; // this very suite
      const typed = command.replaceAll('sik_…', key).replaceAll('http://127.0.0.1:3000', url);
      if (typed.startsWith('curl ')) {
        const body = JSON.parse((await shell(typed)).stdout) as {
          data: Array<{ source: string; title: string; dimension_scores: Record<string, number | null> }>;
        };
        if (typed.includes('source=synthetic')) {
          // Complete insights, labelled as simulated in every item.
          expect(body.data).toHaveLength(DEMO_IDEAS.length);
          for (const insight of body.data) {
            expect(insight.source).toBe('synthetic');
            expect(insight.title).toMatch(/simulated/);
            for (const d of DIMENSIONS) expect(insight.dimension_scores[d], `${insight.title}: ${d}`).not.toBeNull();
          }
        }
        continue;
      }
      const result = await shell(typed);
      if (typed.includes('research pizza')) {
        expect(result.stdout).toMatch(/Insight ins_\w+: overall/);
        // What the answer rests on and its verdict, as on the pages: a replayed pizza is recorded data, dated.
        expect(result.stdout).toMatch(/data: recorded real Google Trends answers .*data as of \d{4}-\d{2}-\d{2}/);
        expect(result.stdout).toMatch(/: (Promising|Mixed|Weak|Unproven)/);
      }
    }
  }, 600_000);

  it('a second npm start in the same folder refuses, saying which one runs and what to do', async () => {
    // Without the first one's process dead: the first test's npm start is still running.
    expect(start?.exitCode).toBeNull();
    const second = await shell('node dist/src/start.js').then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/Another `npm start` \(pid \d+\) is running in this folder/);
    expect(second.stderr).toMatch(/stop it first/);
  }, 120_000);

  it("SIGTERM to npm start's own process stops the service, not only npm (founder review: node was left running)", async () => {
    expect(start?.exitCode).toBeNull();
    const exited = new Promise((r) => start!.once('exit', r));
    // bash -c runs its one command in its own process: start.pid is npm's, and npm forwards the signal to the
    // script, which execs node (package.json) so that node, not a shell between them, receives it.
    process.kill(start!.pid!, 'SIGTERM');
    await exited;
    await until(
      () =>
        fetch(`${served}/healthz`).then(
          () => 'answering',
          () => 'closed',
        ),
      (state) => state === 'closed',
      30_000,
      'the service to stop answering',
    );
  }, 60_000);
});
