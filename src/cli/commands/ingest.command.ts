import type { Command } from 'commander';
import { enqueue } from '../../queue/enqueue.js';
import { JOB } from '../../queue/job-catalogue.js';
import { withServices } from '../resources.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { print, table } from '../output.js';

export function registerIngestCommands(program: Command, context: () => CliContext): void {
  program
    .command('ingest')
    .description(describeCommand('ingest'))
    .command('now')
    .description("Refresh every researched insight's series, forecast and scores now (the daily job, run at once)")
    .action(async () => {
      await withServices(context, async ({ queues }) => {
        const job = await enqueue(queues.ingest, JOB.refreshAll, {});
        print(
          `Enqueued ${job.id}: researched insights refreshed in groups of up to 5 per Google request (demo insights are static). Workers run it; see \`insights budget\`.`,
        );
      });
    });

  program
    .command('schedules')
    .description(describeCommand('schedules'))
    .action(async () => {
      await withServices(context, async ({ queues }) => {
        const rows = [];
        for (const queue of Object.values(queues)) {
          for (const s of await queue.getJobSchedulers()) {
            rows.push({
              scheduler: s.key,
              queue: queue.name,
              job: s.name,
              cron: s.pattern ?? '',
              tz: s.tz ?? 'UTC',
              next: s.next ? new Date(s.next).toISOString() : '',
            });
          }
        }
        print(rows.length > 0 ? table(rows) : 'No schedulers yet: `insights release` (or `npm start`) creates them.');
      });
    });
}
