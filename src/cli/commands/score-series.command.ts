import type { Command } from 'commander';
import { scoreSeriesJsonl } from '../../batch/score-series.js';
import { withBatchStreams } from '../batch-io.js';

export function registerScoreSeriesCommand(program: Command): void {
  program
    .command('score-series')
    .description(
      'Momentum and trend class of series in batch: JSONL in ({"id","points":[{"date","value"}],"points_90d"?}), JSONL out ({"id","momentum","trend_class","model"}), same order',
    )
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
