// `npm run topology`: the scaled-out topology on this machine (a 3-master Redis
// Cluster, a Postgres primary and streaming replica, 2 web and 2 worker
// processes), started as production would run it, until Ctrl-C stops all of it.
import { startTopology } from './topology.js';

const say = (line: string) => process.stdout.write(`${line}\n`);
const topology = await startTopology();
say('The scaled-out topology is running:');
say(`  Redis Cluster:  REDIS_CLUSTER_NODES=${topology.env.REDIS_CLUSTER_NODES}`);
say(`  Postgres:       DATABASE_URL=${topology.env.DATABASE_URL}`);
say(`  replica:        DATABASE_READ_URL=${topology.env.DATABASE_READ_URL}`);
say(`  web processes:  ${topology.webUrls.join('  ')}`);
say(`  workers:        ${topology.workers.length}`);
say('');
say('Use the CLI against it with the same environment, e.g.:');
say(
  `  REDIS_CLUSTER_NODES=${topology.env.REDIS_CLUSTER_NODES} REDIS_PREFIX=${topology.env.REDIS_PREFIX} DATABASE_URL=${topology.env.DATABASE_URL} WEBHOOK_ENCRYPTION_KEY=${topology.env.WEBHOOK_ENCRYPTION_KEY} npx insights doctor`,
);
say('Ctrl-C stops everything.');
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void topology.stop().then((exits) => {
      say(`stopped: ${exits.map((e) => `${e.process} exited ${e.code}`).join(', ')}`);
      process.exit(0);
    });
  });
}
