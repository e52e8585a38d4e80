import { open, readFile, type FileHandle } from 'node:fs/promises';
import type { Command } from 'commander';
import { collectEvidence, parsePhrases } from '../../research/evidence-collect.js';
import { startWorkers, type Pipeline } from '../../runtime/workers.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { withServices } from '../resources.js';
import { UsageError } from '../output.js';

export function registerEvidenceCommands(program: Command, context: () => CliContext): void {
  const evidence = program.command('evidence').description(describeCommand('evidence'));
  evidence
    .command('collect')
    .description(
      "For each phrase of a file (one per line), the related queries Google lists (its embed flow) and the modifier comparison the research asks, through the trends queue inside the routes' pace: one JSON line per phrase, for `npm run bench:evidence -- FILE`",
    )
    .requiredOption(
      '--phrases <file>',
      'the phrases, one per line (# starts a comment); at least 30 of different kinds make a validation set',
    )
    .option('--output <file>', 'where the JSON lines go (- for stdout)', '-')
    .option('--geo <country>', "Google's geography for both requests ('' worldwide, the research's default)", '')
    .option('--deadline-minutes <n>', 'give up waiting for Google after this many minutes', '240')
    .action(async (options: { phrases: string; output: string; geo: string; deadlineMinutes: string }) => {
      const text = await readFile(options.phrases, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(
          `cannot read --phrases ${options.phrases}: ${error.code === 'ENOENT' ? 'no such file' : error.code === 'EISDIR' ? 'a folder, not a file' : (error.code ?? error.message)}`,
        );
      });
      const { phrases, problems } = parsePhrases(text);
      if (problems.length > 0)
        throw new UsageError(
          `--phrases ${options.phrases}: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`,
        );
      if (phrases.length === 0) throw new UsageError(`--phrases ${options.phrases} lists no phrase`);
      const geo = options.geo.trim().toUpperCase();
      if (geo !== '' && !/^[A-Z]{2}$/.test(geo))
        throw new UsageError(`--geo must be empty (worldwide) or a two-letter country code (got "${options.geo}")`);
      const minutes = Number(options.deadlineMinutes);
      if (!Number.isInteger(minutes) || minutes < 1 || minutes > 7 * 24 * 60)
        throw new UsageError('--deadline-minutes must be a whole number from 1 to 10080');
      // The output is opened before Google is asked anything: a path that cannot be written fails now, not after the requests.
      let file: FileHandle | undefined;
      if (options.output !== '-') {
        file = await open(options.output, 'w').catch((error: NodeJS.ErrnoException) => {
          throw new UsageError(
            `cannot write --output ${options.output}: ${error.code === 'ENOENT' ? 'no such folder' : (error.code ?? error.message)}`,
          );
        });
      }
      const write = (line: string) =>
        file ? file.write(line).then(() => undefined) : new Promise<void>((resolve) => process.stdout.write(line, () => resolve()));

      await withServices(context, async (services, { config }) => {
        let pipeline: Pipeline | undefined;
        try {
          if (config.trends.providers.includes('google')) {
            // Google is asked by workers only (they keep the routes' pace): start them here if none runs.
            if ((await services.queues.trends.getWorkers()).length === 0) {
              process.stderr.write('No worker is running (npm start or the Procfile `worker`): asking Google from this process.\n');
              pipeline = await startWorkers(services);
            }
            await services.google();
          }
          const gateway = services.trendsFor(config.trends.provider, 'background');
          const deadline = Date.now() + minutes * 60_000;
          const counts = { listed: 0, compared: 0 };
          for (const [i, phrase] of phrases.entries()) {
            const record = await collectEvidence(phrase, {
              gateway,
              provider: config.trends.provider,
              geo,
              deadline,
              sleepMs: Math.min(30_000, config.trends.waitMs),
            });
            if (record.related_queries.served === 'listed') counts.listed += 1;
            if (record.modifier_comparison.outcome === 'served') counts.compared += 1;
            await write(`${JSON.stringify(record)}\n`);
            process.stderr.write(
              `evidence: ${i + 1}/${phrases.length} "${phrase}": related queries ${record.related_queries.served}, comparison ${record.modifier_comparison.outcome}\n`,
            );
          }
          process.stderr.write(
            `evidence: ${phrases.length} phrases, ${counts.listed} with related queries listed, ${counts.compared} with the comparison served\n`,
          );
        } finally {
          await file?.close();
          await pipeline?.close();
        }
      });
    });
}
