import type { Command } from 'commander';
import { bumpReadModelVersion } from '../../redis/read-model-version.js';
import { migrateToLatest } from '../../db/migrate.js';
import { DEFAULT_DEMO_COUNT, seedDemo } from '../../demo/demo-seed.js';
import { release } from '../../runtime/release.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { withResources, withServices } from '../resources.js';
import { print, UsageError } from '../output.js';
import path from 'node:path';

export function registerMaintenanceCommands(program: Command, context: () => CliContext): void {
  program
    .command('migrate')
    .description(describeCommand('migrate'))
    .action(async () => {
      await withResources(context, async (resources) => {
        const result = await migrateToLatest(resources.db);
        const applied = result.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? [];
        print(applied.length === 0 ? 'Schema is up to date.' : `Applied: ${applied.join(', ')}`);
      });
    });

  program
    .command('release')
    .description(describeCommand('release'))
    .action(async () => {
      await withServices(context, async (services) => print(await release(services)));
    });

  program
    .command('seed')
    .description(describeCommand('seed'))
    .option('--demo', 'load the demo data set (required: the only seed there is)')
    .option('--from <dir>', "folder holding gtab-us-daily.csv (default: DEMO_SERIES_DIR, the repository's data/trends-series)")
    .option('--count <n>', 'how many series to load', String(DEFAULT_DEMO_COUNT))
    .action(async (options: { demo?: boolean; from?: string; count: string }) => {
      if (!options.demo) throw new UsageError('say --demo: demo data is the only seed (real insights come from `insights research`)');
      const count = Number(options.count);
      if (!Number.isInteger(count) || count < 1 || count > 466) throw new UsageError('--count must be a whole number from 1 to 466');
      await withResources(context, async (resources, { config }) => {
        const dir = options.from ? path.resolve(options.from) : config.demoSeriesDir;
        await migrateToLatest(resources.db);
        const { inserted, named } = await seedDemo(resources.db, dir, count);
        await bumpReadModelVersion(resources.redis, resources.redisKeys, resources.db);
        print(`Loaded ${inserted} recorded series (source "recorded-series", ${named} of them named topics) from ${dir}`);
      });
    });
}
