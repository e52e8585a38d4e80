// Starts the Procfile's processes (built: dist/src/web.js, dist/src/worker.js)
// as a supervisor would, and knows when each is ready by the line it logs,
// not by a clock: "web listening" (with its URL) or "workers started".
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { NO_ENV_FILE } from '../../src/config.js';

const ROOT = (() => {
  // scripts/lib/ in the sources, dist/scripts/lib/ when built.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const up = path.resolve(here, '../..');
  return path.basename(up) === 'dist' ? path.resolve(up, '..') : up;
})();

export type ServiceKind = 'web' | 'worker';

/** Node's own flags the Procfile gives a process (`web: node --flag … dist/src/web.js`): tests and benchmarks run it as production does. */
export function procfileNodeFlags(kind: ServiceKind): string[] {
  const line = readFileSync(path.join(ROOT, 'Procfile'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${kind}:`));
  if (!line) throw new Error(`the Procfile has no ${kind} process`);
  return line
    .slice(kind.length + 1)
    .trim()
    .split(/\s+/)
    .filter((word) => word.startsWith('--'));
}

const ENTRY: Record<ServiceKind, string> = { web: 'dist/src/web.js', worker: 'dist/src/worker.js' };
const READY_MESSAGE: Record<ServiceKind, string> = { web: 'web listening', worker: 'workers started' };

export interface ServiceExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class ServiceProcess {
  readonly child: ChildProcess;
  /** Resolves when the process says it is ready; rejects if it exits first or takes longer than the bound. */
  readonly ready: Promise<{ url?: string }>;
  readonly exited: Promise<ServiceExit>;
  /** The last lines it wrote (stdout and stderr), for a failure message. */
  readonly tail: string[] = [];
  private exit: ServiceExit | undefined;
  private readonly lineWaiters: Array<{ text: string; resolve(line: string): void }> = [];

  constructor(
    readonly kind: ServiceKind,
    env: Record<string, string>,
    options: {
      readyTimeoutMs?: number;
      onLine?: (line: string) => void;
      /** Node's own flags, as the Procfile gives them. */ nodeFlags?: readonly string[];
    } = {},
  ) {
    this.child = spawn(process.execPath, [...(options.nodeFlags ?? []), path.join(ROOT, ENTRY[kind])], {
      cwd: ROOT,
      // Readiness is read from the info line, whatever level the caller wants otherwise.
      // ENV_FILE=none: the harness gives each process all it should see; a .env in the project folder must not add to it.
      env: { PATH: process.env.PATH ?? '', ENV_FILE: NO_ENV_FILE, ...env, LOG_LEVEL: env.LOG_LEVEL === 'debug' ? 'debug' : 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    const remember = (line: string) => {
      this.tail.push(line);
      if (this.tail.length > 50) this.tail.shift();
      options.onLine?.(line);
      for (const waiter of [...this.lineWaiters]) {
        if (!line.includes(waiter.text)) continue;
        this.lineWaiters.splice(this.lineWaiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    };
    createInterface({ input: this.child.stderr! }).on('line', remember);
    const lines = createInterface({ input: this.child.stdout! });
    const timeoutMs = options.readyTimeoutMs ?? 120_000;
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${kind} did not report ready within ${timeoutMs} ms:\n${this.tail.join('\n')}`)),
        timeoutMs,
      );
      lines.on('line', (line) => {
        remember(line);
        if (!line.includes(READY_MESSAGE[kind])) return;
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg !== READY_MESSAGE[kind]) return;
          clearTimeout(timer);
          resolve(entry.url ? { url: entry.url } : {});
        } catch {
          // not a log line
        }
      });
      void this.exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`${kind} exited (${exit.signal ?? exit.code}) before it was ready:\n${this.tail.join('\n')}`));
      });
    });
    // Nobody may be waiting on `ready` when it rejects after a later exit.
    this.ready.catch(() => {});
  }

  /** Resolves with the next line (stdout or stderr) that contains `text`. */
  waitForLine(text: string): Promise<string> {
    return new Promise((resolve) => this.lineWaiters.push({ text, resolve }));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Sends `signal` and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<ServiceExit> {
    if (this.exit) return this.exit;
    this.child.kill(signal);
    return this.exited;
  }
}
