// A Redis Cluster of our own on loopback, from Debian's redis-server: N
// masters (and optionally one replica each), cluster mode, no persistence,
// its own ports and temp folder. For the tests and the topology script that
// prove the service on a cluster, failover included.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitForPort } from './free-port.js';

const exec = promisify(execFile);

export interface ClusterNodeProcess {
  port: number;
  process: ChildProcess;
}

export class LocalRedisCluster {
  private constructor(
    readonly dir: string,
    readonly nodes: ClusterNodeProcess[],
  ) {}

  /** `masters` masters with `replicasPerMaster` replicas each; resolves once the cluster answers cluster_state:ok. */
  static async start(masters = 3, replicasPerMaster = 0, nodeTimeoutMs = 2_000): Promise<LocalRedisCluster> {
    const dir = await mkdtemp(path.join(tmpdir(), 'si-redis-cluster-'));
    const count = masters * (1 + replicasPerMaster);
    const ports: number[] = [];
    while (ports.length < count) {
      const p = await freePort();
      // The cluster bus listens on port + 10000: keep both in range and distinct.
      if (p < 55_000 && !ports.includes(p)) ports.push(p);
    }
    const nodes: ClusterNodeProcess[] = [];
    const cluster = new LocalRedisCluster(dir, nodes);
    try {
      for (const port of ports) {
        const nodeDir = path.join(dir, String(port));
        await mkdir(nodeDir);
        const child = spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--dir',
            nodeDir,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            String(nodeTimeoutMs),
            // A replica of a freshly made cluster may not have heard from its master lately: let it take over anyway.
            '--cluster-replica-validity-factor',
            '0',
            '--appendonly',
            'no',
            '--save',
            '',
            '--maxmemory-policy',
            'noeviction',
            '--logfile',
            path.join(nodeDir, 'redis.log'),
          ],
          { stdio: 'ignore' },
        );
        child.on('error', () => {});
        nodes.push({ port, process: child });
      }
      await Promise.all(ports.map((p) => waitForPort(p, 30_000)));
      await exec(
        'redis-cli',
        ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicasPerMaster), '--cluster-yes'],
        { timeout: 60_000 },
      );
      await cluster.waitUntilHealthy();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** REDIS_CLUSTER_NODES for the service. */
  get nodesEnv(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  }

  get seeds(): Array<{ host: string; port: number }> {
    return this.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  }

  private async cli(port: number, ...args: string[]): Promise<string> {
    return (await exec('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 })).stdout;
  }

  /** Every live node says cluster_state:ok and every slot is served. */
  async waitUntilHealthy(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const live = this.nodes.filter((n) => n.process.exitCode === null && n.process.signalCode === null);
      const states = await Promise.all(live.map((n) => this.cli(n.port, 'cluster', 'info').catch(() => '')));
      if (states.every((s) => /cluster_state:ok/.test(s) && /cluster_slots_ok:16384/.test(s))) return;
      if (Date.now() > deadline) throw new Error(`the Redis Cluster did not become healthy within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** The port of the master that serves `key`'s slot now (from CLUSTER NODES of a live node). */
  async masterOf(key: string): Promise<number> {
    const live = this.nodes.find((n) => n.process.exitCode === null && n.process.signalCode === null)!;
    const slot = Number((await this.cli(live.port, 'cluster', 'keyslot', key)).trim());
    for (const line of (await this.cli(live.port, 'cluster', 'nodes')).trim().split('\n')) {
      const [, address = '', flags = '', , , , , , ...ranges] = line.trim().split(/\s+/);
      if (!flags.includes('master') || flags.includes('fail')) continue;
      for (const range of ranges) {
        const [from, to = from] = range.split('-').map(Number);
        if (slot >= from! && slot <= to!) return Number(address.split('@')[0]!.split(':').pop());
      }
    }
    throw new Error(`no master serves slot ${slot}`);
  }

  /** kill -9 of the node on `port` (a crash: a replica is promoted after the node timeout). */
  async crash(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node || node.process.exitCode !== null) return;
    const exited = new Promise((r) => node.process.once('exit', r));
    node.process.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (n) => {
        if (n.process.exitCode !== null || n.process.signalCode !== null) return;
        const exited = new Promise((r) => n.process.once('exit', r));
        n.process.kill('SIGKILL');
        await exited;
      }),
    );
    await rm(this.dir, { recursive: true, force: true });
  }
}
