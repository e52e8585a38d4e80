import { describeCommand } from '../command-index.js';
import type { Command } from 'commander';
import type { RouteBudget } from '../../providers/google/egress/egress-pool.js';
import type { CliContext } from '../context.js';
import { withServices } from '../resources.js';
import { print, printJson, table } from '../output.js';

const minutes = (ms: number) => `${Math.max(1, Math.ceil(ms / 60_000))} min`;
const BLOCK_NAMES: Record<string, string> = { sorry_302: '302', too_many_429: '429', forbidden_403: '403', unusual_traffic: 'page' };
/** Blocks that day, and how they came: "3 (302: 1, 429: 2)". */
const blocks = (r: RouteBudget) => {
  const kinds = Object.entries(r.blocksByKind).filter(([, n]) => n > 0);
  return kinds.length === 0 ? String(r.blocked) : `${r.blocked} (${kinds.map(([k, n]) => `${BLOCK_NAMES[k] ?? k}: ${n}`).join(', ')})`;
};

const STATE: Record<RouteBudget['state'], (r: RouteBudget) => string> = {
  open: () => 'open',
  cooling: (r) => `cooling ${minutes(r.stateForMs)} (block ${r.streak} in a row)`,
  probing: () => 'probing (one request asks whether the block is over)',
  refused: (r) => `paused ${minutes(r.stateForMs)} after a 400`,
  consent: (r) => `set aside ${minutes(r.stateForMs)}: Google answers it with its EU consent page (TRENDS_CONSENT_COOKIES)`,
};

export function registerBudgetCommand(program: Command, context: () => CliContext): void {
  program
    .command('budget')
    .description(describeCommand('budget'))
    .option('--json', 'print the figures as one JSON object')
    .action(async (options: { json?: boolean }) => {
      await withServices(context, async (services) => {
        const report = await services.budget({ paid: true });
        if (options.json) return printJson(report);
        const perHour = report.requestsPerHourPerRoute;
        print(`Google Trends budget, ${report.day} (UTC), in HTTPS requests`);
        print(
          table(
            report.routes.map((r) => ({
              route: r.route,
              'last hour': perHour > 0 ? `${r.requestsLastHour}/${perHour}` : r.requestsLastHour,
              today: r.requests,
              answered: r.answers,
              blocked: blocks(r),
              refused: r.refused,
              changed: r.changed,
              errors: r.errors,
              embed: `${r.embedRequests}${r.overQuota > 0 ? ` (${r.overQuota} over quota)` : ''}${r.embedWaitMs > 0 ? `, waits ${minutes(r.embedWaitMs)}` : ''}`,
              label: r.userType ?? '–',
              explore: `${r.exploreBucket.tokens} tokens, ${r.exploreBucket.refillPerMinute}/min${r.exploreBucket.rateLimits > 0 ? ` (${r.exploreBucket.rateLimits} rate limits)` : ''}`,
              state: STATE[r.state](r),
              // Blocks are per endpoint family: the families not open, the others serving.
              families:
                Object.entries(r.families)
                  .filter(([, f]) => f.state !== 'open')
                  .map(([name, f]) => `${name} ${f.state}${f.forMs > 0 ? ` ${minutes(f.forMs)}` : ''}`)
                  .join(', ') || 'all open',
            })),
          ),
        );
        print(
          perHour === 0
            ? 'Pace: none (TRENDS_REQUESTS_PER_MINUTE=0): routes send as fast as jobs ask'
            : `Pace: ${report.requestsPerMinutePerRoute} HTTPS requests a minute per route (${perHour} an hour); ${report.routes.length} route${report.routes.length === 1 ? '' : 's'}: ${perHour * report.routes.length} an hour`,
        );
        print(`Research runs waiting on Google: ${report.researchRunsWaiting}`);
        if (report.check) {
          const c = report.check;
          print(
            `Canary (${c.checkedAt}, via ${c.route}): ${c.broken.length === 0 ? 'every kind answered as expected' : `BROKEN: ${c.broken.join(', ')}`}; labelled ${c.userType.explore ?? '–'} (explore), ${c.userType.embed ?? '–'} (embed)`,
          );
        }
        const f = report.refresh;
        print(
          `Refresh: ${f.insights} insights on live Google in ${f.requests} HTTPS requests (groups of up to 5), needs ${f.minutesNeeded} min at this pace; next at ${f.nextRefreshAt}`,
        );
        print(f.fits ? `  ${f.advice}` : `  WARNING: ${f.advice}`);
        for (const p of report.paid) {
          const usd = (n: number | null) => (n === null ? '–' : `$${n.toFixed(4)}`);
          if (p.unit === 'data points') {
            // Free but metered: its quota is spent in data points (one per point an answer carries).
            print(`${p.provider} (quota in data points), ${report.day} (UTC):`);
            if (p.accountProblem) print(`  WARNING since ${p.accountProblem.at}: ${p.accountProblem.message}; runs wait until it is fixed`);
            print(
              `  Today: research ${p.today.research.requests} requests, ${p.today.research.points} data points; refresh and discovery ${p.today.background.requests} requests, ${p.today.background.points} data points`,
            );
            print(
              p.perRun.runs === 0
                ? '  Per research run: no finished run asked it yet'
                : `  Per research run (median of the latest ${p.perRun.runs}): ${p.perRun.medianRequests} requests, ${p.perRun.medianPoints} data points`,
            );
            continue;
          }
          print(`${p.provider} (paid), ${report.day} (UTC):`);
          if (p.accountProblem) print(`  WARNING since ${p.accountProblem.at}: ${p.accountProblem.message}; runs wait until it is fixed`);
          print(
            `  Today: research ${p.today.research.requests} requests, ${usd(p.today.research.usd)}; refresh and discovery ${p.today.background.requests} requests, ${usd(p.today.background.usd)}`,
          );
          print(
            p.perRun.runs === 0
              ? '  Per research run: no finished run asked it yet'
              : `  Per research run (median of the latest ${p.perRun.runs}): ${p.perRun.medianRequests} requests, ${usd(p.perRun.medianUsd)}`,
          );
          print(
            `  Refresh: ${p.refresh.insights} insights in ${p.refresh.requests} tasks a day, ${usd(p.refresh.usdPerDay)} (${usd(p.refresh.usdPerInsight)} per refreshed insight, at the listed price)`,
          );
        }
      });
    });
}
