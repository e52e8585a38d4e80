// The `insights` command tree. Building it opens nothing: each command asks
// `context` for the configuration and logger when it runs, so `--help` (and a
// test that reads the commands and their options) needs no database.
//
// A command's module (and what it imports: Postgres, Redis, BullMQ) is loaded
// only when that command runs. `insights --help` lists every command from
// command-index.ts without loading any of them: with all thirteen modules
// loaded up front it took 0.5 s quiet and over 1 s on a loaded machine, most of
// it their imports.
import { Command } from 'commander';
import { COMMAND_DESCRIPTIONS, type CommandName } from './command-index.js';
import type { CliContext } from './context.js';

type Register = (program: Command, context: () => CliContext) => void;

interface CommandModule {
  /** The top-level commands the module registers. */
  readonly commands: readonly CommandName[];
  readonly load: () => Promise<Register>;
}

/** Which module registers which top-level commands. */
const COMMAND_MODULES: readonly CommandModule[] = [
  {
    commands: ['migrate', 'release', 'seed'],
    load: async () => (await import('./commands/maintenance.command.js')).registerMaintenanceCommands,
  },
  { commands: ['accounts'], load: async () => (await import('./commands/accounts.command.js')).registerAccountCommands },
  { commands: ['keys'], load: async () => (await import('./commands/keys.command.js')).registerKeyCommands },
  { commands: ['research', 'runs'], load: async () => (await import('./commands/research.command.js')).registerResearchCommands },
  { commands: ['ingest', 'schedules'], load: async () => (await import('./commands/ingest.command.js')).registerIngestCommands },
  { commands: ['forecast'], load: async () => (await import('./commands/forecast.command.js')).registerForecastCommand },
  { commands: ['score-series'], load: async () => (await import('./commands/score-series.command.js')).registerScoreSeriesCommand },
  { commands: ['show'], load: async () => (await import('./commands/show.command.js')).registerShowCommand },
  { commands: ['webhooks'], load: async () => (await import('./commands/webhooks.command.js')).registerWebhookCommands },
  { commands: ['budget'], load: async () => (await import('./commands/budget.command.js')).registerBudgetCommand },
  { commands: ['doctor'], load: async () => (await import('./commands/doctor.command.js')).registerDoctorCommand },
  { commands: ['google'], load: async () => (await import('./commands/google.command.js')).registerGoogleCommands },
  { commands: ['mcp'], load: async () => (await import('./commands/mcp.command.js')).registerMcpCommand },
  { commands: ['evidence'], load: async () => (await import('./commands/evidence.command.js')).registerEvidenceCommands },
  { commands: ['capacity'], load: async () => (await import('./commands/capacity.command.js')).registerCapacityCommand },
];

function newProgram(): Command {
  return new Command('insights')
    .description('Startup Insights: research startup ideas against real search-interest data.')
    .showHelpAfterError()
    .exitOverride();
}

/** The top-level command an argument list runs (`insights help X` asks about X), if any. */
function commandNamed(args: readonly string[]): string | undefined {
  const words = args.filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/**
 * The program for one invocation (`args` without node and the script): the
 * module of the command it runs is loaded and registered in full; every other
 * command is listed by name and description only, for help and for
 * commander's "did you mean" on a mistyped name.
 */
export async function buildProgramFor(args: readonly string[], context: () => CliContext): Promise<Command> {
  const program = newProgram();
  const wanted = commandNamed(args);
  for (const module of COMMAND_MODULES) {
    if (wanted !== undefined && (module.commands as readonly string[]).includes(wanted)) (await module.load())(program, context);
    else for (const name of module.commands) program.command(name).description(COMMAND_DESCRIPTIONS[name]);
  }
  return program;
}

/** Every command registered in full (tests read the whole tree: names, options, descriptions). */
export async function buildProgram(context: () => CliContext): Promise<Command> {
  const program = newProgram();
  for (const module of COMMAND_MODULES) {
    const register = await module.load();
    register(program, context);
    const registered = program.commands.map((command) => command.name());
    for (const name of module.commands) {
      if (!registered.includes(name)) throw new Error(`the command index names insights ${name}, which its module does not register`);
    }
  }
  return program;
}
