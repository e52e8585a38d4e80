// The two receivers docs/webhooks.md offers (Node with standardwebhooks, Python
// with its standard library), run as a reader would run them, against real
// deliveries from the pipeline: each verifies and reports the event once, and
// refuses a forged request.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/free-port.js';
import { PROJECT_ROOT } from '../../src/config.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { runCli } from '../support/cli.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { createTestStack, type TestStack } from '../support/stack.js';

interface Receiver {
  name: string;
  child: ChildProcess;
  port: number;
  events: Array<{ verified: boolean; id: string; type: string; insight: string; title: string }>;
}

const EXAMPLES = path.join(PROJECT_ROOT, 'docs/examples');
const RECEIVERS = [
  { name: 'node', command: process.execPath, args: [path.join(EXAMPLES, 'webhook-receiver.mjs')] },
  { name: 'python', command: 'python3', args: [path.join(EXAMPLES, 'webhook_receiver.py')] },
];

let database: TestDatabase;
let pipeline: Pipeline;
let env: Record<string, string>;
const receivers: Receiver[] = [];
const encryptionKey = randomBytes(32).toString('base64');

/** Starts a receiver as the docs say (WEBHOOK_SECRET, PORT) and resolves once it says where it listens. */
function startReceiver(spec: (typeof RECEIVERS)[number], secret: string, port: number): Promise<Receiver> {
  const child = spawn(spec.command, spec.args, {
    cwd: EXAMPLES,
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  return new Promise((resolve, reject) => {
    const receiver: Receiver = { name: spec.name, child, port: 0, events: [] };
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as { listening?: number } & Receiver['events'][number];
      if (message.listening !== undefined) {
        receiver.port = message.listening;
        resolve(receiver);
      } else receiver.events.push(message);
    });
    child.once('exit', (code) => reject(new Error(`${spec.name} receiver exited (${code}): ${stderr.join('\n')}`)));
  });
}

let stack: TestStack | undefined;
beforeAll(async () => {
  stack = await createTestStack({
    env: { WEBHOOK_ENCRYPTION_KEY: encryptionKey, WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_SCALE: '0.0002' },
    workers: true,
  });
  ({ database, env } = stack);
  pipeline = stack.pipeline!;
}, 60_000);
afterAll(async () => {
  for (const r of receivers) r.child.kill('SIGTERM');
  await stack?.close();
});

describe('the receivers in docs/webhooks.md', () => {
  it('verify and report a real delivery once each, and refuse a forged one', async () => {
    for (const spec of RECEIVERS) {
      // A subscription per receiver; its secret, shown once, is what the receiver is started with.
      const port = await freePort();
      const added = await runCli(['webhooks', 'add', '--url', `http://127.0.0.1:${port}/hooks`, '--keyword', 'harp', '--json'], env);
      expect(added.code, added.stderr).toBe(0);
      const { secret } = JSON.parse(added.stdout) as { secret: string };
      receivers.push(await startReceiver(spec, secret, port));
    }

    const run = await startRun(database.db, new StepQueue(pipeline.queues.research), {
      idea: 'Harp lessons online',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
    });
    const done = await until(
      () => database.db.selectFrom('research_runs').selectAll().where('id', '=', run.id).executeTakeFirstOrThrow(),
      (r) => r.status === 'succeeded',
      120_000,
      'the run',
    );
    for (const receiver of receivers) {
      await until(
        async () => receiver.events.length,
        (n) => n >= 1,
        60_000,
        `a delivery to the ${receiver.name} receiver`,
      );
      expect(receiver.events[0], receiver.name).toMatchObject({ verified: true, type: 'insight.created', insight: done.insight_id });
    }

    for (const receiver of receivers) {
      const forged = await fetch(`http://127.0.0.1:${receiver.port}/hooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'evt_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': `v1,${randomBytes(32).toString('base64')}`,
        },
        body: JSON.stringify({ type: 'insight.created', data: { id: 'ins_forged' } }),
      });
      expect(forged.status, receiver.name).toBe(400);
      expect(receiver.events.map((e) => e.id)).not.toContain('evt_forged');
    }
  }, 240_000);
});
