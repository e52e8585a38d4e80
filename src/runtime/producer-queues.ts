// What producers need (the CLI, the web process, release): the queues, opened
// without loading any job module.
import { Queue } from 'bullmq';
import { QUEUES, type QueueName } from '../queue/queue-names.js';
import type { Resources } from './resources.js';

export interface OpenQueues {
  queues: Record<QueueName, Queue>;
  close(): Promise<void>;
}

export function openQueues(resources: Resources): OpenQueues {
  const connection = resources.connectRedis('worker');
  const queues = Object.fromEntries(
    Object.values(QUEUES).map((name) => [name, new Queue(name, { connection, prefix: resources.redisKeys.queuePrefix(name) })]),
  ) as Record<QueueName, Queue>;
  return {
    queues,
    async close() {
      await Promise.all(Object.values(queues).map((q) => q.close()));
      connection.disconnect();
    },
  };
}
