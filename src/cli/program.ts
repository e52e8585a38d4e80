// The `insights` command tree. Building it opens nothing: each command asks
// `context` for the configuration and logger when it runs, so `--help` (and a
// test that reads the commands and their options) needs no database.
import { Command } from 'commander';
import { registerAccountCommands } from './commands/accounts.command.js';
import { registerBudgetCommand } from './commands/budget.command.js';
import { registerDoctorCommand } from './commands/doctor.command.js';
import { registerEvidenceCommands } from './commands/evidence.command.js';
import { registerForecastCommand } from './commands/forecast.command.js';
import { registerGoogleCommands } from './commands/google.command.js';
import { registerIngestCommands } from './commands/ingest.command.js';
import { registerKeyCommands } from './commands/keys.command.js';
import { registerMaintenanceCommands } from './commands/maintenance.command.js';
import { registerResearchCommands } from './commands/research.command.js';
import { registerScoreSeriesCommand } from './commands/score-series.command.js';
import { registerShowCommand } from './commands/show.command.js';
import { registerWebhookCommands } from './commands/webhooks.command.js';
import type { CliContext } from './context.js';

export function buildProgram(context: () => CliContext): Command {
  const program = new Command('insights')
    .description('Startup Insights: research startup ideas against real search-interest data.')
    .showHelpAfterError()
    .exitOverride();
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
  registerGoogleCommands(program, context);
  registerEvidenceCommands(program, context);
  return program;
}
