// `insights …`: the ops command line. Usage errors exit 2, failures exit 1,
// and every message says what to do next.
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { registerBudgetCommand } from './commands/budget.command.js';
import { registerDoctorCommand } from './commands/doctor.command.js';
import { registerForecastCommand } from './commands/forecast.command.js';
import { registerScoreSeriesCommand } from './commands/score-series.command.js';
import { registerIngestCommands } from './commands/ingest.command.js';
import { registerKeyCommands } from './commands/keys.command.js';
import { registerAccountCommands } from './commands/accounts.command.js';
import { registerMaintenanceCommands } from './commands/maintenance.command.js';
import { registerResearchCommands } from './commands/research.command.js';
import { registerShowCommand } from './commands/show.command.js';
import { registerWebhookCommands } from './commands/webhooks.command.js';
import { forTerminal, UsageError } from './output.js';

const program = new Command('insights')
  .description('Startup Insights: research startup ideas against real search-interest data.')
  .showHelpAfterError()
  .exitOverride();

// Each command opens what it needs through this lazily, so `--help` needs no database.
export interface CliContext {
  config: ReturnType<typeof loadConfig>;
  logger: ReturnType<typeof createLogger>;
}
const context = (): CliContext => {
  const config = loadConfig();
  // Logs go to stderr at warn: stdout is for the command's own output.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr as never);
  return { config, logger };
};

registerMaintenanceCommands(program, context);
registerAccountCommands(program, context);
registerKeyCommands(program, context);
registerResearchCommands(program, context);
registerIngestCommands(program, context);
registerForecastCommand(program);
registerScoreSeriesCommand(program);
registerShowCommand(program, context);
registerWebhookCommands(program, context);
registerBudgetCommand(program, context);
registerDoctorCommand(program, context);

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
