import { migrateToLatest } from '../db/migrate.js';
import { upsertSchedulers } from './schedules.js';
import type { Services } from './services.js';

/** The release phase: everything a deploy must do once before web and workers start. Idempotent. */
export async function release({ db, queues, config }: Pick<Services, 'db' | 'queues' | 'config'>): Promise<string> {
  const result = await migrateToLatest(db);
  const applied = result.results?.filter((r) => r.status === 'Success').length ?? 0;
  const schedulers = await upsertSchedulers(queues, config);
  return `Migrations: ${applied === 0 ? 'up to date' : `${applied} applied`}. Schedulers: ${schedulers.join(', ')}.`;
}
