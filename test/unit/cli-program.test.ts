// `insights` loads a command's module only when that command runs, so --help
// lists everything without importing Postgres, Redis or BullMQ.
import { describe, expect, it } from 'vitest';
import { COMMAND_DESCRIPTIONS } from '../../src/cli/command-index.js';
import { buildProgram, buildProgramFor } from '../../src/cli/program.js';

const noContext = () => {
  throw new Error('no command runs here');
};

describe('the insights program', () => {
  it('lists every top-level command the full tree has, with the same description, without loading one', async () => {
    const full = await buildProgram(noContext);
    const listed = await buildProgramFor(['--help'], noContext);
    const described = (program: typeof full) => program.commands.map((c) => [c.name(), c.description()]);
    expect(described(listed)).toEqual(described(full));
    expect(Object.keys(COMMAND_DESCRIPTIONS)).toEqual(full.commands.map((c) => c.name()));
    // Listed only: no subcommand, no option of its own.
    expect(listed.commands.every((c) => c.commands.length === 0 && c.options.length === 0)).toBe(true);
  });

  it('registers in full the command it runs, and the other commands of its module, and lists the rest', async () => {
    const program = await buildProgramFor(['keys', 'create', '--name', 'x'], noContext);
    const keys = program.commands.find((c) => c.name() === 'keys')!;
    expect(keys.commands.map((c) => c.name())).toContain('create');
    const research = await buildProgramFor(['runs', 'list'], noContext);
    expect(research.commands.find((c) => c.name() === 'research')!.options.length).toBeGreaterThan(0);
    expect(program.commands.find((c) => c.name() === 'webhooks')!.commands).toEqual([]);
    const help = await buildProgramFor(['help', 'webhooks'], noContext);
    expect(help.commands.find((c) => c.name() === 'webhooks')!.commands.length).toBeGreaterThan(3);
  });
});
