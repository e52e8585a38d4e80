// The embedded default without REDIS_URL: use the Redis on 127.0.0.1:6379 if
// one answers, else start `redis-server` from PATH with its data under .data/.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { DEFAULT_REDIS_URL } from './connection.js';

export interface LocalRedis {
  url: string;
  /** Set when we started the server ourselves. */
  process?: ChildProcess;
  stop(): Promise<void>;
}

function answersPing(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export class RedisUnavailableError extends Error {}

export async function ensureLocalRedis(dataDir: string, port = 6379): Promise<LocalRedis> {
  if (await answersPing('127.0.0.1', port)) {
    return { url: port === 6379 ? DEFAULT_REDIS_URL : `redis://127.0.0.1:${port}`, stop: async () => {} };
  }
  const dir = path.join(dataDir, 'redis');
  await mkdir(dir, { recursive: true });
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--maxmemory-policy', 'noeviction'],
    { stdio: 'ignore' },
  );
  const spawned = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(false));
    child.once('spawn', () => resolve(true));
  });
  if (!spawned) {
    throw new RedisUnavailableError(
      `No Redis answers on 127.0.0.1:${port} and redis-server is not on PATH — install it (apt-get install redis-server, or brew install redis) or set REDIS_URL`,
    );
  }
  for (let i = 0; i < 50; i += 1) {
    if (await answersPing('127.0.0.1', port)) {
      return {
        url: `redis://127.0.0.1:${port}`,
        process: child,
        stop: async () => {
          child.kill('SIGTERM');
        },
      };
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new RedisUnavailableError(`redis-server was started but did not answer on 127.0.0.1:${port} — see its log, or set REDIS_URL`);
}
