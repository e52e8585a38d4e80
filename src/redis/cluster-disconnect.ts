// A Redis Cluster client disconnected while it is between connections never
// ends. ioredis's Cluster.disconnect() ends the client when its connection pool
// drains, but after every node's connection was lost (CLIENT KILL on every
// node, or nodes killed) the pool is already empty while the client waits to
// reconnect: disconnect() cancels the reconnection, nothing is left to drain,
// and the client stays 'disconnecting' forever without emitting 'end'. BullMQ's
// Worker.close() awaits that 'end' on its blocking connection, so a worker sent
// SIGTERM at that moment never closed (the cluster chaos soak of 2026-11-29:
// "exited 1 on SIGTERM", the shutdown deadline's exit). Ended here as ioredis
// ends a client that never connected. createRedis applies it to every cluster
// client and its duplicates (BullMQ's blocking connection is a duplicate).
import { Cluster } from 'ioredis';

/** The parts of ioredis's Cluster this module reaches into (private in its types). */
interface ClusterInternals {
  connectionPool: { nodes: { all: Record<string, unknown> } };
  setStatus(status: string): void;
  handleCloseEvent(): void;
}

const patched = new WeakSet<Cluster>();

/** After this, `cluster.disconnect()` always ends the client with 'end'. */
export function endOnDisconnectWhileReconnecting(cluster: Cluster): void {
  if (patched.has(cluster)) return;
  patched.add(cluster);
  const internals = cluster as unknown as ClusterInternals;
  const disconnect = cluster.disconnect.bind(cluster);
  cluster.disconnect = (reconnect = false) => {
    const before = cluster.status;
    disconnect(reconnect);
    // 'wait' and 'end' ioredis handles itself, and a reconnect is ioredis's own. Checked a turn later: BullMQ's
    // recovery of a blocking cluster disconnects and connects again at once, and must not meet an 'end'.
    if (reconnect || before === 'wait' || before === 'end') return;
    setImmediate(() => {
      const poolEmpty = Object.keys(internals.connectionPool.nodes.all).length === 0;
      if (cluster.status === 'disconnecting' && poolEmpty) {
        internals.setStatus('close');
        internals.handleCloseEvent();
      }
    });
  };
}
