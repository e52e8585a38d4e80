import type { Command } from 'commander';
import { budgetReport } from '../../runtime/budget.js';
import { egressPoolFor } from '../../runtime/workers.js';
import type { CliContext } from '../main.js';
import { withResources } from '../resources.js';
import { print, printJson, table } from '../output.js';

const minutes = (ms: number) => (ms <= 0 ? '—' : `${Math.ceil(ms / 60_000)} min`);

export function registerBudgetCommand(program: Command, context: () => CliContext): void {
  program
    .command('budget')
    .description("Google Trends' request budget today: per egress route, research waiting, and whether the daily refresh fits")
    .option('--json', 'print the figures as one JSON object')
    .action(async (options: { json?: boolean }) => {
      await withResources(context, async (resources, { config }) => {
        const report = await budgetReport(resources.db, egressPoolFor(resources, config), config);
        if (options.json) return printJson(report);
        const rate = report.ratePerMinutePerRoute;
        print(`Google Trends budget, ${report.day} (UTC)`);
        print(
          table(
            report.routes.map((r) => ({
              route: r.route,
              answers: r.answers,
              'https requests': r.requests,
              '429s': r.rateLimited,
              errors: r.errors,
              paused: r.pausedForMs > 0 ? `${minutes(r.pausedForMs)} (streak ${r.streak})` : '—',
            })),
          ),
        );
        print(
          rate === 0
            ? `Rate: no limit per route (TRENDS_RATE_PER_MINUTE=0)`
            : `Rate: ${rate} trends requests per minute per route; ${report.routes.length} route${report.routes.length === 1 ? '' : 's'}: ${rate * report.routes.length} per minute`,
        );
        print(`Research runs waiting on Google: ${report.researchRunsWaiting}`);
        const f = report.refresh;
        print(`Refresh: ${f.insights} insights on live Google in ${f.requests} requests (up to 5 keywords each), needs ${f.minutesNeeded} min at this rate; next at ${f.nextRefreshAt}`);
        print(f.fits ? `  ${f.advice}` : `  WARNING: ${f.advice}`);
      });
    });
}
