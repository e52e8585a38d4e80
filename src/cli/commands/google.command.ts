import type { Command } from 'commander';
import { routesFrom } from '../../trends/egress.js';
import { checkGoogle } from '../../trends/google-check.js';
import { anchorTermFor } from '../../trends/provider-factory.js';
import type { CliContext } from '../context.js';
import { print, printJson, table, UsageError } from '../output.js';

export function registerGoogleCommands(program: Command, context: () => CliContext): void {
  const google = program.command('google').description('Google Trends itself, as it answers now');
  google
    .command('check')
    .description(
      'A live canary: one request of each kind the product sends (the home page for the cookie, the explore widgets, the embed flow\'s related queries, autocomplete, the trending feed), through the first egress route, each with how Google answered, its latency and the label Google gives the client; exits 1 when a kind research or discovery needs is broken',
    )
    .option('--geo <country>', 'country of the explore and of the trending feed', 'US')
    .option('--json', 'print the result as one JSON object')
    .action(async (options: { geo: string; json?: boolean }) => {
      const geo = options.geo.trim().toUpperCase();
      if (!/^[A-Z]{2}$/.test(geo)) throw new UsageError(`--geo must be a two-letter country code such as US (got "${options.geo}")`);
      const { config } = context();
      const [route] = routesFrom(config.trendsProxyUrls);
      const result = await checkGoogle({ route: route!, geo, term: anchorTermFor('google', config.trendsAnchor), timeoutMs: config.trendsRequestTimeoutMs });
      if (options.json) {
        printJson(result);
      } else {
        print(`Google Trends, ${result.checkedAt}, via ${result.route}, geo ${result.geo}, term "${result.term}"`);
        print(`How Google labels this client: ${result.userType.explore ?? '(no explore token)'} (explore), ${result.userType.embed ?? '(no embed token)'} (embed)`);
        print(
          table(
            result.kinds.map((k) => ({
              kind: k.kind,
              outcome: k.outcome.replace('_', ' '),
              ms: k.ms ?? '',
              'needed by': k.neededBy,
              '': k.broken ? 'BROKEN' : 'ok',
              detail: k.detail.slice(0, 140),
            })),
          ),
        );
        print(
          result.broken.length === 0
            ? 'Every kind research and discovery need answers as expected.'
            : `BROKEN: ${result.broken.join(', ')}. See docs/operations.md, "Google changed".`,
        );
      }
      if (result.broken.length > 0) process.exitCode = 1;
    });
}
