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

export interface ClusterNodeRole {
  id: string;
  port: number;
  master: boolean;
  /** Marked failed (or suspected) by the node asked. */
  failed: boolean;
  /** A replica's master. */
  masterId: string | undefined;
  slots: number[];
}

export class LocalRedisCluster {
  private constructor(
    readonly dir: string,
    readonly nodes: ClusterNodeProcess[],
    private readonly nodeTimeoutMs: number,
  ) {}

  /** One node's redis-server; its folder keeps nodes.conf, so a node started again rejoins as itself. */
  private spawnNode(port: number): ChildProcess {
    const nodeDir = path.join(this.dir, String(port));
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
        String(this.nodeTimeoutMs),
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
    return child;
  }

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
    const cluster = new LocalRedisCluster(dir, nodes, nodeTimeoutMs);
    try {
      for (const port of ports) {
        await mkdir(path.join(dir, String(port)));
        nodes.push({ port, process: cluster.spawnNode(port) });
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

  /** The cluster as a live node sees it now: who is master of what, who replicates whom. */
  async roles(): Promise<ClusterNodeRole[]> {
    const live = this.nodes.filter((n) => n.process.exitCode === null && n.process.signalCode === null);
    for (const node of live) {
      const text = await this.cli(node.port, 'cluster', 'nodes').catch(() => '');
      if (!text.trim()) continue;
      return text
        .trim()
        .split('\n')
        .map((line) => {
          const [id = '', address = '', flags = '', masterId = '-', , , , , ...ranges] = line.trim().split(/\s+/);
          const slots: number[] = [];
          for (const range of ranges) {
            if (range.startsWith('[')) continue; // a slot being migrated or imported
            const [from, to = from] = range.split('-').map(Number);
            for (let slot = from!; slot <= to!; slot += 1) slots.push(slot);
          }
          return {
            id,
            port: Number(address.split('@')[0]!.split(':').pop()),
            master: flags.includes('master'),
            failed: flags.includes('fail'),
            masterId: masterId === '-' ? undefined : masterId,
            slots,
          };
        });
    }
    throw new Error('no Redis Cluster node answered CLUSTER NODES');
  }

  /** Runs redis-cli against one node (the harness's control channel: failovers, slot moves, INFO). */
  async command(port: number, ...args: string[]): Promise<string> {
    return this.cli(port, ...args);
  }

  /** Starts the node on `port` again (after crash or stop): it rejoins with its nodes.conf, as a replica if it was failed over. */
  async restart(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no cluster node on port ${port}`);
    if (node.process.exitCode === null && node.process.signalCode === null) return;
    node.process = this.spawnNode(port);
    await waitForPort(port, 30_000);
  }

  /** SIGTERM to the node on `port` (a clean stop), resolved when it has exited. */
  async terminate(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node || node.process.exitCode !== null || node.process.signalCode !== null) return;
    const exited = new Promise((r) => node.process.once('exit', r));
    node.process.kill('SIGTERM');
    await exited;
  }

  /**
   * Every node is up, every master has `replicasPerMaster` replicas whose link
   * to it is up, and every slot is served: the cluster can lose a master again.
   */
  async waitUntilReplicated(replicasPerMaster: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      try {
        await this.waitUntilHealthy(Math.max(1, deadline - Date.now()));
        const roles = await this.roles();
        const masters = roles.filter((r) => r.master && !r.failed && r.slots.length > 0);
        const replicas = roles.filter((r) => !r.master && !r.failed);
        const linked = await Promise.all(
          replicas.map(async (r) => /master_link_status:up/.test(await this.cli(r.port, 'info', 'replication').catch(() => ''))),
        );
        const perMaster = masters.map((m) => replicas.filter((r, i) => r.masterId === m.id && linked[i]).length);
        last = `masters with linked replicas: ${perMaster.join(', ')}; failed nodes: ${roles.filter((r) => r.failed).length}`;
        if (roles.every((r) => !r.failed) && perMaster.every((n) => n >= replicasPerMaster)) return;
      } catch (error) {
        last = String(error);
      }
      if (Date.now() > deadline) throw new Error(`the Redis Cluster was not replicated again within ${timeoutMs} ms (${last})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /**
   * Moves one slot, with its keys, from the master serving it to `toPort`, the
   * way `redis-cli --cluster reshard` does: the target imports, the source
   * migrates, the keys go over with MIGRATE in batches, then every master is
   * told the slot's new owner. Clients meanwhile get ASK, TRYAGAIN and MOVED.
   */
  async moveSlot(slot: number, toPort: number): Promise<{ keys: number; fromPort: number }> {
    const roles = await this.roles();
    const from = roles.find((r) => r.master && r.slots.includes(slot));
    const to = roles.find((r) => r.port === toPort && r.master);
    if (!from || !to) throw new Error(`slot ${slot}: no master serves it, or ${toPort} is no master`);
    if (from.id === to.id) return { keys: 0, fromPort: from.port };
    await this.cli(to.port, 'cluster', 'setslot', String(slot), 'importing', from.id);
    await this.cli(from.port, 'cluster', 'setslot', String(slot), 'migrating', to.id);
    let moved = 0;
    for (;;) {
      const keys = (await this.cli(from.port, 'cluster', 'getkeysinslot', String(slot), '100')).split('\n').filter(Boolean);
      if (keys.length === 0) break;
      const answer = await this.cli(from.port, 'migrate', '127.0.0.1', String(to.port), '', '0', '10000', 'replace', 'keys', ...keys);
      if (!/OK|NOKEY/.test(answer)) throw new Error(`MIGRATE of slot ${slot} answered ${answer.trim()}`);
      moved += keys.length;
    }
    // The target first, so the slot is never owned by nobody (as redis-cli does).
    await this.cli(to.port, 'cluster', 'setslot', String(slot), 'node', to.id);
    await this.cli(from.port, 'cluster', 'setslot', String(slot), 'node', to.id);
    for (const master of roles.filter((r) => r.master && !r.failed && r.id !== to.id && r.id !== from.id)) {
      await this.cli(master.port, 'cluster', 'setslot', String(slot), 'node', to.id).catch(() => '');
    }
    return { keys: moved, fromPort: from.port };
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
