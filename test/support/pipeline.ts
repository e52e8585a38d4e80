import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { NO_ENV_FILE, PROJECT_ROOT } from '../../src/config.js';

/** Starts the real `worker` process (built), as the Procfile does. */
export function startWorkerProcess(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/src/worker.js')], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ENV_FILE: NO_ENV_FILE, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', () => {});
  return child;
}

/** `work`, or an error naming `what` once `timeoutMs` has passed (the work itself is left to finish or not). */
export async function within<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
