// A Postgres cluster of our own on a loopback port, for the chaos soak and the
// tests that restart, crash or replicate Postgres: initdb into a temp folder,
// pg_ctl to start, stop (fast or immediate) and restart it. Uses the Debian
// binaries (/usr/lib/postgresql/<version>/bin), else the initdb on PATH
// (Homebrew and other layouts). Postgres refuses to run as root, so as root
// the cluster belongs to the `postgres` user.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const exec = promisify(execFile);

export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  const onPath = (process.env.PATH ?? '').split(path.delimiter).find((dir) => dir && existsSync(path.join(dir, 'initdb')));
  if (onPath) return onPath;
  throw new Error(
    'initdb not found under /usr/lib/postgresql or on PATH — install the Postgres server binaries (apt-get install postgresql; macOS: brew install postgresql@16 and put its bin folder on PATH)',
  );
}

const asRoot = process.getuid?.() === 0;

/** Runs a Postgres binary as the user that owns the cluster. */
async function run(bin: string, args: string[], timeoutMs = 120_000): Promise<string> {
  const file = path.join(postgresBinDir(), bin);
  const { stdout } = asRoot
    ? await exec('runuser', ['-u', 'postgres', '--', file, ...args], { timeout: timeoutMs })
    : await exec(file, args, { timeout: timeoutMs });
  return stdout;
}

async function ownedByPostgres(dir: string): Promise<void> {
  if (!asRoot) return;
  const { stdout } = await exec('id', ['-u', 'postgres']);
  const { stdout: gid } = await exec('id', ['-g', 'postgres']);
  await chown(dir, Number(stdout.trim()), Number(gid.trim()));
}

export interface LocalPostgresOptions {
  /** Extra postgresql.conf lines. */
  settings?: Record<string, string | number>;
  /** Copy an existing cluster instead of initdb (a streaming replica): see startReplica. */
  dataDir?: string;
  port?: number;
}

export class LocalPostgres {
  private constructor(
    readonly root: string,
    readonly dataDir: string,
    readonly port: number,
  ) {}

  /** A new cluster (trust auth, user postgres), started. */
  static async create(options: LocalPostgresOptions = {}): Promise<LocalPostgres> {
    const pg = await LocalPostgres.init(options);
    await pg.start();
    return pg;
  }

  /** A new cluster, not started yet: a caller can register its cleanup before anything runs. */
  static async init(options: LocalPostgresOptions = {}): Promise<LocalPostgres> {
    const root = await mkdtemp(path.join(tmpdir(), 'si-pg-'));
    await ownedByPostgres(root);
    const dataDir = options.dataDir ?? path.join(root, 'data');
    const port = options.port ?? (await freePort());
    if (!options.dataDir) {
      await run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
    }
    const pg = new LocalPostgres(root, dataDir, port);
    await pg.configure({ wal_level: 'replica', max_wal_senders: 5, ...options.settings });
    return pg;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  urlFor(database: string, applicationName?: string): string {
    const base = `postgres://postgres@127.0.0.1:${this.port}/${database}`;
    return applicationName ? `${base}?application_name=${encodeURIComponent(applicationName)}` : base;
  }

  private async configure(settings: Record<string, string | number>): Promise<void> {
    const lines = Object.entries({
      listen_addresses: "'127.0.0.1'",
      port: this.port,
      unix_socket_directories: `'${this.root}'`,
      max_connections: 200,
      ...settings,
    }).map(([k, v]) => `${k} = ${v}`);
    const conf = path.join(this.root, 'extra.conf');
    await writeFile(conf, `${lines.join('\n')}\n`);
    await ownedByPostgres(conf);
    // include_if_exists appended once; later calls rewrite extra.conf only.
    const main = path.join(this.dataDir, 'postgresql.conf');
    if (!(await readFile(main, 'utf8')).includes(conf)) await appendFile(main, `\ninclude_if_exists = '${conf}'\n`);
  }

  async start(): Promise<void> {
    await run('pg_ctl', ['-D', this.dataDir, '-l', path.join(this.root, 'server.log'), '-w', '-t', '120', 'start']);
  }

  /** `fast`: a clean shutdown (connections terminated); `immediate`: a crash, recovered from WAL at the next start. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await run('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '120', 'stop']);
  }

  async restart(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.stop(mode);
    await this.start();
  }

  async isRunning(): Promise<boolean> {
    try {
      await run('pg_ctl', ['-D', this.dataDir, 'status']);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A streaming replica of this cluster on its own port (pg_basebackup),
   * started. `applyDelay` (e.g. '3s') holds replay back to make lag visible.
   */
  async startReplica(options: { applyDelay?: string } = {}): Promise<LocalPostgres> {
    const root = await mkdtemp(path.join(tmpdir(), 'si-pg-replica-'));
    await ownedByPostgres(root);
    const dataDir = path.join(root, 'data');
    await run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(this.port),
      '-U',
      'postgres',
      '-D',
      dataDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
      '--checkpoint=fast',
    ]);
    const port = await freePort();
    const replica = new LocalPostgres(root, dataDir, port);
    await replica.configure({
      hot_standby: 'on',
      ...(options.applyDelay ? { recovery_min_apply_delay: `'${options.applyDelay}'` } : {}),
    });
    await replica.start();
    return replica;
  }

  /** Stops the server (immediately: nothing here is worth a checkpoint) and removes its files. */
  async destroy(): Promise<void> {
    if (await this.isRunning()) await this.stop('immediate').catch(() => {});
    await rm(this.root, { recursive: true, force: true });
  }
}
