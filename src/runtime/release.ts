import type { Config } from '../config.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Resources } from './resources.js';
import { openQueues } from './producer-queues.js';
import { upsertSchedulers } from './schedules.js';

/** The release phase: everything a deploy must do once before web and workers start. Idempotent. */
export async function release(resources: Resources, config: Config): Promise<string> {
  const result = await migrateToLatest(resources.db);
  const applied = result.results?.filter((r) => r.status === 'Success').length ?? 0;
  const { queues, close } = openQueues(resources);
  try {
    const schedulers = await upsertSchedulers(queues, config);
    return `Migrations: ${applied === 0 ? 'up to date' : `${applied} applied`}. Schedulers: ${schedulers.join(', ')}.`;
  } finally {
    await close();
  }
}
