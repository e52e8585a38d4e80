import { describeCommand } from '../command-index.js';
import type { Command } from 'commander';
import { scoreSeriesJsonl } from '../../jsonl/score-series.js';
import { withBatchStreams } from '../batch-io.js';

export function registerScoreSeriesCommand(program: Command): void {
  program
    .command('score-series')
    .description(describeCommand('score-series'))
    .requiredOption('--input <file>', 'input JSONL file, or - for stdin')
    .requiredOption('--output <file>', 'output JSONL file, or - for stdout')
    .action(async (options: { input: string; output: string }) => {
      const summary = await withBatchStreams(options, scoreSeriesJsonl);
      process.stderr.write(
        `score-series: ${summary.lines} lines — ${summary.scored} scored, ${summary.unscored} without enough data, ${summary.errors} errors\n`,
      );
      // Any failed line makes the exit code 1; the other lines are still written.
      if (summary.errors > 0) process.exitCode = 1;
    });
}
