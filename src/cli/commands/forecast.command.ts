import { describeCommand } from '../command-index.js';
import type { Command } from 'commander';
import { forecastJsonl, MAX_HORIZON } from '../../jsonl/forecast.js';
import { withBatchStreams } from '../batch-io.js';
import { UsageError } from '../output.js';

export function registerForecastCommand(program: Command): void {
  program
    .command('forecast')
    .description(describeCommand('forecast'))
    .requiredOption('--input <file>', 'input JSONL file, or - for stdin')
    .requiredOption('--output <file>', 'output JSONL file, or - for stdout')
    .option('--horizon <days>', `default horizon for lines without one (1–${MAX_HORIZON})`, '7')
    .action(async (options: { input: string; output: string; horizon: string }) => {
      const horizon = Number(options.horizon);
      if (!Number.isInteger(horizon) || horizon < 1 || horizon > MAX_HORIZON)
        throw new UsageError(`--horizon must be a whole number from 1 to ${MAX_HORIZON}`);
      const summary = await withBatchStreams(options, (input, output) => forecastJsonl(input, output, horizon));
      process.stderr.write(
        `forecast: ${summary.lines} lines — ${summary.forecast} forecast, ${summary.withheld} withheld, ${summary.errors} errors\n`,
      );
      // Any failed line makes the exit code 1; the other lines are still written.
      if (summary.errors > 0) process.exitCode = 1;
    });
}
