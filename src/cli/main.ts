// `insights …`: the ops command line. Usage errors exit 2, failures exit 1,
// and every message says what to do next.
import { CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { forTerminal, UsageError } from './output.js';
import type { CliContext } from './context.js';
import { buildProgramFor } from './program.js';

const context = (): CliContext => {
  const config = loadConfig();
  // Logs go to stderr at warn: stdout is for the command's own output.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr as never, {
    traced: config.tracing.endpoint !== undefined,
  });
  return { config, logger };
};
const program = await buildProgramFor(process.argv.slice(2), context);

// A reader that stops reading (`insights budget | head -3`) is not a failure of the command.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exit(error.exitCode === 0 ? 0 : 2);
  }
  const message = error instanceof Error ? error.message : String(error);
  // Postgres 42P01 (undefined_table): a database nobody has migrated yet.
  const hint = (error as { code?: unknown }).code === '42P01' ? ' (the schema is missing or old: run `insights migrate`)' : '';
  process.stderr.write(`insights: ${forTerminal(message)}${hint}\n`);
  process.exit(error instanceof UsageError || error instanceof ConfigError ? 2 : 1);
}
