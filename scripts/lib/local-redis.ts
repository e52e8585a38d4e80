// A redis-server of our own on a loopback port, for the chaos soak and tests
// that restart or kill Redis. Persistence is AOF (kept across restarts) unless
// asked otherwise. Cluster mode lives in local-redis-cluster.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './free-port.js';

export interface LocalRedisOptions {
  /** Append-only file on (default): a restart keeps every acknowledged write. */
  appendOnly?: boolean;
  port?: number;
  extraArgs?: string[];
}

export class LocalRedis {
  private child: ChildProcess | undefined;

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly args: string[],
  ) {}

  static async create(options: LocalRedisOptions = {}): Promise<LocalRedis> {
    const redis = await LocalRedis.init(options);
    await redis.start();
    return redis;
  }

  /** Configured, not started yet: a caller can register its cleanup before anything runs. */
  static async init(options: LocalRedisOptions = {}): Promise<LocalRedis> {
    const dir = await mkdtemp(path.join(tmpdir(), 'si-redis-'));
    const port = options.port ?? (await freePort());
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      options.appendOnly === false ? 'no' : 'yes',
      '--maxmemory-policy',
      'noeviction',
      '--logfile',
      path.join(dir, 'redis.log'),
      ...(options.extraArgs ?? []),
    ];
    return new LocalRedis(dir, port, args);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', this.args, { stdio: 'ignore' });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('error', (e) => reject(new Error(`redis-server could not start (${e.message}) — apt-get install redis-server`)));
      child.once('spawn', () => resolve());
    });
    await waitForPort(this.port, 30_000);
  }

  /** SIGTERM: Redis shuts down cleanly and flushes its AOF. SIGKILL: a crash. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
    this.child = undefined;
  }

  async restart(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    await this.stop(signal);
    await this.start();
  }

  async destroy(): Promise<void> {
    await this.stop('SIGKILL');
    await rm(this.dir, { recursive: true, force: true });
  }
}
