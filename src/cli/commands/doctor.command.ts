import type { Command } from 'commander';
import { Cluster } from 'ioredis';
import { createDb } from '../../db/connection.js';
import { measureReplicaLag, type ReplicaLag } from '../../db/read-router.js';
import { QUEUES } from '../../queue/queue-names.js';
import { describeTarget } from '../../redis/connection.js';
import { keySlot } from '../../redis/slots.js';
import { utcDay } from '../../domain/utc-day.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { withResources } from '../resources.js';
import { print, printJson, table } from '../output.js';

export function registerDoctorCommand(program: Command, context: () => CliContext): void {
  program
    .command('doctor')
    .description(describeCommand('doctor'))
    .option('--json', "print the replica's lag and the key layout as JSON")
    .action(async (options: { json?: boolean }) => {
      await withResources(context, async (resources, { config }) => {
        const keys = resources.redisKeys;
        const today = utcDay(new Date());
        const layout: Array<{ what: string; key: string }> = [
          ...Object.values(QUEUES).map((q) => ({ what: `queue ${q}`, key: `${keys.queuePrefix(q)}:${q}:wait` })),
          { what: 'quota counters (one tag per key: spread)', key: keys.quota('<key id>', today) },
          { what: 'read-model version and WAL position', key: keys.readModelVersion },
          { what: 'webhook subscription index version', key: keys.subscriptionsVersion },
          { what: 'Google egress routes and budget', key: `${keys.trendsPool}:budget:${today}` },
        ];
        const cluster = resources.redis instanceof Cluster ? resources.redis : undefined;
        if (cluster) await cluster.ping(); // make sure the slot map is loaded
        const rows = layout.map(({ what, key }) => {
          const slot = keySlot(key);
          const node = cluster ? (cluster.slots[slot]?.[0] ?? '(no node)') : describeTarget(resources.redisTarget);
          return { what, key, slot, node };
        });
        let replica: ({ reachable: true } & ReplicaLag) | { reachable: false; error: string } | undefined;
        if (config.database.readUrl) {
          // A probe, not a service: the root opens the replica in web processes only, and doctor must see it from anywhere.
          const replicaDb = createDb(config.database.readUrl, { maxConnections: 1, applicationName: 'si-cli' });
          try {
            replica = { reachable: true, ...(await measureReplicaLag(resources.db, replicaDb)) };
          } catch (error) {
            replica = { reachable: false, error: error instanceof Error ? error.message : String(error) };
          } finally {
            await replicaDb.destroy();
          }
        }
        if (options.json)
          return printJson({
            redis: describeTarget(resources.redisTarget),
            cluster: Boolean(cluster),
            ...(replica ? { replica } : {}),
            layout: rows,
          });
        print(
          `Postgres: ${config.database.url ? 'DATABASE_URL' : 'embedded (PGlite)'}${config.database.readUrl ? '; API reads from DATABASE_READ_URL once it has replayed what a response needs' : ''}`,
        );
        if (replica?.reachable) {
          const age = replica.lastReplaySecondsAgo === null ? '' : `; last transaction replayed ${replica.lastReplaySecondsAgo} s ago`;
          print(
            `Replica:  ${replica.bytesBehind} bytes of WAL behind the primary (replayed ${replica.replayedLsn} of ${replica.primaryLsn})${age}`,
          );
        } else if (replica) {
          print(`Replica:  not reachable (${replica.error}); the API reads the primary until it answers`);
        }
        print(
          `Redis:    ${describeTarget(resources.redisTarget)}${cluster ? ` (${new Set(rows.map((r) => r.node)).size} masters hold these keys)` : ''}`,
        );
        print('');
        print(table(rows.map((r) => ({ ...r, slot: String(r.slot) }))));
      });
    });
}
