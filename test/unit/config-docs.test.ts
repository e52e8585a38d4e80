// The pages tell operators which variables and commands exist; these checks
// keep them honest against the code:
// - the configuration table in docs/operations.md and .env.example list every
//   variable src/config.ts reads, and nothing it does not read;
// - every environment variable any page names is one something in the
//   repository reads (config.ts, a benchmark or script, an example receiver) or
//   a shell variable the page itself exports, and none is one config.ts refuses
//   as retired;
// - every `insights …` command line a page shows names a real command, and
//   each of its --flags is an option of that command; every command is shown;
// - every `npm run X` a page shows is a script of package.json;
// - every example value in .env.example is one config.ts accepts.
// CHANGELOG.md is left out: it records what changed, including names since renamed.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { loadConfig, PROJECT_ROOT, RETIRED_VARIABLES } from '../../src/config.js';
import { PLAN_VALUES } from '../../src/domain/quota.js';

const read = (file: string) => readFile(path.join(PROJECT_ROOT, file), 'utf8');

async function variablesRead(): Promise<Set<string>> {
  // config.ts and its sections (src/config/: one file per section since 2026-11-28), and each provider's own
  // section, declared by its profile (src/providers/<name>/profile.ts) and read through the registry.
  const source = [
    await read('src/config.ts'),
    ...(await sources('src/config', /\.ts$/)),
    ...(await sources('src/providers', /profile\.ts$/)),
  ].join('\n');
  // Every variable goes through one of the section loaders' readers: read.text('X'), read.url('X', …), read.integer('X', …),
  // read.cron('X', …), read.oneOf('X', …), read.list('X', …), or is read from the raw environment before them (env.X).
  // read.perPlan('X', …) reads one variable per plan: X_FREE, X_STARTER, X_PRO, X_ENTERPRISE.
  const perPlan = [...source.matchAll(/\bread\.perPlan\('([A-Z][A-Z0-9_]+)'/g)].flatMap((m) =>
    PLAN_VALUES.map((plan) => `${m[1]!}_${plan.toUpperCase()}`),
  );
  return new Set([
    ...[...source.matchAll(/\b(?:read\.(?:text|url|integer|cron|oneOf|list|path)\('([A-Z][A-Z0-9_]+)'|env\.([A-Z][A-Z0-9_]+))/g)].map(
      (m) => (m[1] ?? m[2])!,
    ),
    ...perPlan,
  ]);
}

async function variablesDocumented(): Promise<Set<string>> {
  const doc = await read('docs/operations.md');
  const section = doc.slice(doc.indexOf('## Configuration'), doc.indexOf('\n## ', doc.indexOf('## Configuration') + 1));
  const firstCells = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|')[1]!);
  return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));
}

/** The pages a user reads (CHANGELOG.md aside), with their text. */
async function pages(): Promise<Array<{ page: string; text: string }>> {
  const docs = (await readdir(path.join(PROJECT_ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const data = ['data/README.md', 'data/trends-series/README.md', 'data/google-trends-recorded/README.md'];
  return Promise.all(
    ['README.md', 'SECURITY.md', '.env.example', ...docs, ...data].map(async (page) => ({ page, text: await read(page) })),
  );
}

/** Every file of a folder, recursively, with the given endings. */
async function sources(folder: string, endings: RegExp): Promise<string[]> {
  const entries = await readdir(path.join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true });
  // A benchmark peer's own node_modules (bench/peers/*) is not ours.
  const files = entries
    .filter((e) => e.isFile() && endings.test(e.name) && !e.parentPath.includes('node_modules'))
    .map((e) => path.join(e.parentPath, e.name));
  return Promise.all(files.map((f) => readFile(f, 'utf8')));
}

/** Environment variables something in the repository reads, besides config.ts. */
async function variablesReadElsewhere(): Promise<Set<string>> {
  const texts = [
    ...(await sources('bench', /\.(ts|mjs)$/)),
    ...(await sources('scripts', /\.(ts|mjs)$/)),
    ...(await sources('test', /\.ts$/)),
    ...(await sources('docs/examples', /\.(mjs|py)$/)),
  ];
  const names = new Set<string>();
  for (const text of texts) {
    for (const m of text.matchAll(
      /process\.env\.([A-Z][A-Z0-9_]+)|process\.env\[['"]([A-Z][A-Z0-9_]+)['"]\]|os\.environ(?:\.get)?[[(]["']([A-Z][A-Z0-9_]+)["']/g,
    )) {
      names.add((m[1] ?? m[2] ?? m[3])!);
    }
    // Variables handed to processes the harnesses start (NODE_EXTRA_CA_CERTS for the loopback Google's authority, …).
    for (const m of text.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+): /g)) names.add(m[1]!);
  }
  return names;
}

/** Variables config.ts refuses at start because an older release read them (RETIRED_VARIABLES). */
async function variablesRetired(): Promise<Set<string>> {
  return new Set(RETIRED_VARIABLES.map(([name]) => name));
}

/** UPPER_SNAKE names declared in the code (constants a page may cite, such as MIN_PEAK_IN_BATCH). */
async function constantsDeclared(): Promise<Set<string>> {
  const texts = [...(await sources('src', /\.ts$/)), ...(await sources('jobs', /\.ts$/))];
  return new Set(
    texts.flatMap((t) => [...t.matchAll(/\b(?:const|let|function|class)\s+([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)].map((m) => m[1]!)),
  );
}

/** Names a page states as variables: in backticks, or assigned (`NAME=value`, `export NAME=`). */
function statedVariables(text: string): Array<{ name: string; exported: boolean }> {
  const found = new Map<string, boolean>();
  for (const m of text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`|(?:^|[\s#`(])(export\s+)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/gm)) {
    const name = (m[1] ?? m[3])!;
    found.set(name, (found.get(name) ?? false) || Boolean(m[2]));
  }
  return [...found].map(([name, exported]) => ({ name, exported }));
}

/** Command lines a page shows: lines of its code blocks and inline code spans that run `insights`. */
function commandLines(text: string): string[] {
  const lines: string[] = [];
  // Fences are taken in pairs from the start of a line, so a closing fence is never read as an opening one.
  for (const block of text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm))
    if (['', 'sh', 'bash'].includes(block[1]!)) lines.push(...block[2]!.split('\n'));
  for (const span of text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)) lines.push(span[1]!);
  return lines
    .map((l) => l.replace(/\s+#\s.*$/, '').trim())
    .map((l) => /(?:^|\s)(?:npx\s+)?insights\s+(.*)$/.exec(l)?.[1])
    .filter((rest): rest is string => rest !== undefined && /^[a-z]/.test(rest));
}

function subcommand(parent: Command, name: string): Command | undefined {
  return parent.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

/**
 * Checks one shown command line ("accounts list | show ACC_ID [--json]") against
 * the program: each alternative after `|` is a sibling subcommand (or a
 * top-level one), and each --flag an option of the command it follows.
 */
function checkCommandLine(program: Command, rest: string, shown?: Set<Command>): string[] {
  const problems: string[] = [];
  let parent: Command = program;
  rest.split(/\s+\|\s+/).forEach((alternative, i) => {
    const tokens = alternative
      .replace(/[[\]]/g, ' ')
      .replace(/\.\.\./g, ' ')
      .split(/\s+/)
      .filter(Boolean);
    let command: Command | undefined = i === 0 ? program : parent;
    let k = 0;
    if (i > 0 && tokens[0] && !subcommand(parent, tokens[0]) && subcommand(program, tokens[0])) command = program;
    while (k < tokens.length && command && subcommand(command, tokens[k]!)) {
      parent = command;
      command = subcommand(command, tokens[k]!);
      k += 1;
    }
    if (!command || command === program) {
      problems.push(`"insights ${rest}": no command "${tokens[0]}"`);
      return;
    }
    shown?.add(command);
    const next = tokens[k];
    if (k === 0 || (command.commands.length > 0 && next !== undefined && !next.startsWith('--'))) {
      problems.push(`"insights ${rest}": "${tokens[k]}" is not a subcommand of "${command.name()}"`);
      return;
    }
    const longs = new Set([...command.options.map((o) => o.long), '--help']);
    for (const flag of tokens.slice(k).filter((t) => t.startsWith('--'))) {
      const name = flag.split('=')[0]!;
      if (!longs.has(name))
        problems.push(`"insights ${rest}": "${command.name()}" has no option ${name} (it has ${[...longs].join(', ')})`);
    }
  });
  return problems;
}

describe('the configuration table', () => {
  it('lists every variable src/config.ts reads, and no other', async () => {
    const read = await variablesRead();
    const documented = await variablesDocumented();
    expect(read.size).toBeGreaterThan(40);
    expect([...read].filter((v) => !documented.has(v)).sort(), 'read but not in docs/operations.md').toEqual([]);
    expect([...documented].filter((v) => !read.has(v)).sort(), 'in docs/operations.md but never read').toEqual([]);
  });

  it('is what .env.example lists too', async () => {
    const example = await read('.env.example');
    const listed = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!));
    const read_ = await variablesRead();
    expect([...read_].filter((v) => !listed.has(v)).sort(), 'read but not in .env.example').toEqual([]);
    expect([...listed].filter((v) => !read_.has(v)).sort(), 'in .env.example but never read').toEqual([]);
  });
});

describe('what the pages say', () => {
  it('names only environment variables something reads', async () => {
    const known = new Set([...(await variablesRead()), ...(await variablesReadElsewhere()), ...(await constantsDeclared())]);
    const unknown: string[] = [];
    for (const { page, text } of await pages()) {
      for (const { name, exported } of statedVariables(text)) {
        // Google's labels of a client in its tokens (userConfig.userType) are values, not variables.
        if (/^USER_TYPE_/.test(name)) continue;
        if (!exported && !known.has(name)) unknown.push(`${page}: ${name}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('never names a variable config.ts refuses as retired', async () => {
    const retired = await variablesRetired();
    expect([...retired].sort()).toEqual(['TRENDS_PAUSE_MS', 'TRENDS_RATE_PER_MINUTE']);
    const named: string[] = [];
    for (const { page, text } of await pages()) {
      for (const { name } of statedVariables(text)) if (retired.has(name)) named.push(`${page}: ${name}`);
    }
    expect(named).toEqual([]);
  });

  it('shows only insights commands and options that exist', async () => {
    const program = await buildProgram(() => {
      throw new Error('no command runs here');
    });
    const problems: string[] = [];
    let checked = 0;
    for (const { page, text } of await pages()) {
      for (const rest of commandLines(text)) {
        checked += 1;
        problems.push(...checkCommandLine(program, rest).map((p) => `${page}: ${p}`));
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });

  it('shows every command of the CLI somewhere', async () => {
    const program = await buildProgram(() => {
      throw new Error('no command runs here');
    });
    const shown = new Set<Command>();
    for (const { text } of await pages()) for (const rest of commandLines(text)) checkCommandLine(program, rest, shown);
    const leaves = (c: Command, prefix: string): Array<[string, Command]> =>
      c.commands.flatMap((sub) => {
        const name = `${prefix} ${sub.name()}`.trim();
        return sub.commands.length > 0 ? leaves(sub, name) : [[name, sub] as [string, Command]];
      });
    const all = leaves(program, '');
    expect(all.length).toBeGreaterThan(30);
    expect(all.filter(([, c]) => !shown.has(c)).map(([name]) => `insights ${name}`)).toEqual([]);
  });

  it('catches a command or an option that does not exist (the check itself)', async () => {
    const program = await buildProgram(() => {
      throw new Error('no command runs here');
    });
    expect(checkCommandLine(program, 'accounts list | show ACC_ID [--json]')).toEqual([]);
    expect(checkCommandLine(program, 'runs list | runs show RUN_ID | runs retry RUN_ID')).toEqual([]);
    expect(checkCommandLine(program, 'webhooks replay DELIVERY_ID | replay --subscription ID --since TIME')).toEqual([]);
    expect(checkCommandLine(program, 'keys create --name NAME --plan PLAN --colour red')[0]).toMatch(/"create" has no option --colour/);
    expect(checkCommandLine(program, 'accounts delete ACC_ID')[0]).toMatch(/"delete" is not a subcommand of "accounts"/);
    expect(checkCommandLine(program, 'frobnicate --now')[0]).toMatch(/no command "frobnicate"/);
  });

  it('runs only npm scripts that exist', async () => {
    const scripts = new Set(Object.keys((JSON.parse(await read('package.json')) as { scripts: Record<string, string> }).scripts));
    const missing: string[] = [];
    for (const { page, text } of await pages()) {
      // `npm run bench:<name>` stands for every benchmark: placeholders are not names.
      for (const m of text.matchAll(/npm run ([a-z][\w:-]*)(?![\w:<-])/g))
        if (!scripts.has(m[1]!)) missing.push(`${page}: npm run ${m[1]}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('.env.example', () => {
  it('gives example values config.ts accepts, each on its own', async () => {
    const example = await read('.env.example');
    const refused: string[] = [];
    // What a value needs beside it to be valid (a replica needs its primary).
    const partners: Record<string, Record<string, string>> = {
      DATABASE_READ_URL: { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/insights' },
    };
    for (const m of example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=(.*)$/gm)) {
      const [, name, value] = m as unknown as [string, string, string];
      if (value.trim() === '') continue; // "unset" is the default
      try {
        loadConfig({ ...partners[name], [name]: value.trim(), ENV_FILE: 'none' });
      } catch (error) {
        refused.push(`${name}=${value}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    expect(refused).toEqual([]);
  });
});
