// One place builds the services (STYLE.md 15): src/runtime/services.ts. A service
// constructed anywhere else in src/ or jobs/ is a second root, with its own settings
// and its own connections, drifting from the first; this test names the file and line.
//
// Which classes are services is read from the source, not listed by hand: every class
// whose constructor takes a Redis or a Db (Kysely), directly or in an object of
// collaborators (an interface or type declared in src/), or inherits such a constructor.
// A few services hold neither and are named below; a few constructions elsewhere are
// parts of a service or of a job, each with the reason it is not a second root.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROVIDER_NAMES } from '../../src/providers/registry.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Where services are built and used; tests, benchmarks and scripts build their own on purpose. */
const SCANNED = ['src', 'jobs'];
const COMPOSITION_ROOT = 'src/runtime/services.ts';

/**
 * Every registered provider's client: the class its `src/providers/<name>/provider.ts` exports, read from the
 * source for each name in the registry, so a sixth provider is covered without editing this list.
 */
const PROVIDER_CLIENTS: readonly string[] = PROVIDER_NAMES.flatMap((name) =>
  [...readFileSync(path.join(ROOT, 'src/providers', name, 'provider.ts'), 'utf8').matchAll(/^export class (\w+)/gm)].map(([, c]) => c!),
);

/** Services of the root that take neither a Redis nor a Db: their settings come from the configuration, once. */
const ALSO_SERVICES: readonly string[] = ['StepQueue', 'QueuedTrendsGateway', 'SecretBox', 'HashGate', ...PROVIDER_CLIENTS];

/** Constructions outside the root that are not a second root, by the constructing file's name (wherever it moves). */
const EXCEPTIONS: ReadonlyArray<{ file: string; builds: string; why: string }> = [
  {
    file: 'egress.ts',
    builds: 'EgressPool',
    why: "the pool's factory: the root calls it, and `insights google check` over a Redis that may be away",
  },
  { file: 'egress-pool.ts', builds: 'RedisCookieJar', why: "a part of the pool: each route's cookie, kept beside its pace" },
  { file: 'step-runner.ts', builds: 'StepRecorder', why: 'a part of the runner: it records the steps the runner runs' },
  { file: 'research-step.job.ts', builds: 'StepRunner', why: "the job's runner, one per worker, made of the services the root built" },
  {
    file: 'webhook-deliver.job.ts',
    builds: 'DeliveryRunner',
    why: "the job's runner, one per worker, made of the services the root built",
  },
  { file: 'app.ts', builds: 'UsageRecorder', why: 'lives and dies with the app: started when it is ready, flushed when it closes' },
  // Each provider's adapter is the factory the root's gateways call through the registry (src/providers/<name>/adapter.ts).
  ...['PaidTrendsGateway', ...PROVIDER_CLIENTS].map((builds) => ({
    file: 'adapter.ts',
    builds,
    why: "the provider's factory, called by the root through the registry",
  })),
  {
    file: 'dry-run.ts',
    builds: 'SyntheticTrendsProvider',
    why: 'the dry run asks the simulated world in memory and opens no service (`insights research --dry-run`)',
  },
];

interface SourceFile {
  /** Relative to the repository, with forward slashes. */
  file: string;
  text: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const parse = ({ file, text }: SourceFile) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
const HOLDS = /\b(Redis|Db|Kysely)\b/;

/** Every class declared in the files: where, and whether its constructor takes a Redis or a Db. */
function servicesOf(files: readonly SourceFile[]): Map<string, { file: string; holds: boolean }> {
  const parsed = files.map((f) => ({ file: f.file, source: parse(f) }));
  // The members of every interface and type alias, by name: a constructor's `deps: WebhookServiceDeps` is read through them.
  const shapes = new Map<string, string>();
  const classes = new Map<string, { file: string; params: string[] | null; base: string | undefined }>();
  for (const { file, source } of parsed) {
    source.forEachChild((node) => {
      if (ts.isInterfaceDeclaration(node)) shapes.set(node.name.text, node.members.map((m) => m.getText(source)).join('\n'));
      if (ts.isTypeAliasDeclaration(node)) shapes.set(node.name.text, node.type.getText(source));
      if (ts.isClassDeclaration(node) && node.name) {
        const constructor = node.members.find(ts.isConstructorDeclaration);
        const base = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression.getText(source);
        classes.set(node.name.text, {
          file,
          params: constructor ? constructor.parameters.map((p) => p.type?.getText(source) ?? '') : null,
          base,
        });
      }
    });
  }
  const typeHolds = (text: string, seen: Set<string>): boolean =>
    HOLDS.test(text) ||
    [...text.matchAll(/\b[A-Z]\w*/g)].some(([name]) => {
      const shape = shapes.get(name);
      if (shape === undefined || seen.has(name)) return false;
      seen.add(name);
      return typeHolds(shape, seen);
    });
  const holds = (name: string, depth = 0): boolean => {
    const c = classes.get(name);
    if (!c || depth > 10) return false;
    // No constructor of its own: it is built with its base class's.
    if (c.params === null) return c.base !== undefined && holds(c.base, depth + 1);
    return c.params.some((type) => typeHolds(type, new Set()));
  };
  return new Map([...classes].map(([name, c]) => [name, { file: c.file, holds: holds(name) }]));
}

/** Every service constructed outside the root, its own file and the exceptions, as "file:line Service". */
function constructionsOutsideRoot(files: readonly SourceFile[]): string[] {
  const classes = servicesOf(files);
  const services = new Set([...classes].filter(([, c]) => c.holds).map(([name]) => name));
  for (const name of ALSO_SERVICES) services.add(name);
  const found: string[] = [];
  for (const f of files) {
    if (f.file === COMPOSITION_ROOT) continue;
    const source = parse(f);
    const flag = (name: string, at: ts.Node) => {
      if (!services.has(name) || classes.get(name)?.file === f.file) return;
      if (EXCEPTIONS.some((e) => e.builds === name && path.posix.basename(f.file) === e.file)) return;
      found.push(`${f.file}:${source.getLineAndCharacterOfPosition(at.getStart(source)).line + 1} ${name}`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) flag(node.expression.text, node);
      // A static factory (SecretBox.fromConfig) builds one as surely as `new`.
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        ts.isIdentifier(node.expression.expression) &&
        /^from[A-Z]/.test(node.expression.name.text)
      )
        flag(node.expression.expression.text, node);
      node.forEachChild(visit);
    };
    visit(source);
  }
  return found;
}

/**
 * Who opens the connections and builds the root: the process entry points, and the CLI's one door (withServices).
 * A command that opened its own queues or resources would hold connections the root does not close.
 */
const OPENERS: Readonly<Record<string, readonly string[]>> = {
  openQueues: [COMPOSITION_ROOT],
  openResources: ['src/web.ts', 'src/worker.ts', 'src/start.ts', 'src/cli/resources.ts'],
  buildServices: ['src/web.ts', 'src/worker.ts', 'src/start.ts', 'src/cli/resources.ts'],
};

/** Every call of an opener outside the files allowed to, as "file:line opener". */
function openersOutsideDoors(files: readonly SourceFile[]): string[] {
  const found: string[] = [];
  for (const f of files) {
    const source = parse(f);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
        const allowed = OPENERS[node.expression.text];
        if (allowed && !allowed.includes(f.file))
          found.push(`${f.file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${node.expression.text}`);
      }
      node.forEachChild(visit);
    };
    visit(source);
  }
  return found;
}

const repository = (): SourceFile[] =>
  SCANNED.flatMap((dir) => sources(path.join(ROOT, dir))).map((full) => ({
    file: path.relative(ROOT, full).split(path.sep).join('/'),
    text: readFileSync(full, 'utf8'),
  }));

describe('the composition root', () => {
  it('is the only place in src/ and jobs/ that constructs a service', () => {
    const files = repository();
    expect(files.some((f) => f.file === COMPOSITION_ROOT)).toBe(true);
    expect(constructionsOutsideRoot(files)).toEqual([]);
  });

  it('is the only opener of the queues, and the entry points and withServices the only openers of the resources', () => {
    expect(openersOutsideDoors(repository())).toEqual([]);
    expect(
      openersOutsideDoors([
        {
          file: 'src/cli/commands/ingest.command.ts',
          text: 'const r = await openResources(config, logger);\nconst { queues } = openQueues(r);',
        },
        { file: 'src/runtime/services.ts', text: 'const opened = openQueues(resources);' },
      ]),
    ).toEqual(['src/cli/commands/ingest.command.ts:1 openResources', 'src/cli/commands/ingest.command.ts:2 openQueues']);
  });

  it('reads the services from the source: the classes that take a Redis or a Db, and the named ones exist', () => {
    const classes = servicesOf(repository());
    const holding = [...classes].filter(([, c]) => c.holds).map(([name]) => name);
    // Found, not listed: a Redis alone, a Db alone, both, and both through an object of collaborators (inherited).
    expect(holding).toEqual(expect.arrayContaining(['KnownDevices', 'ApiKeyCache', 'QuotaStore', 'WebhookService', 'SignInLimiter']));
    // A name here that no class has any more (renamed, removed) would check nothing: it must be mended.
    for (const name of ALSO_SERVICES) expect(classes.has(name), `${name} is declared as a class in src/`).toBe(true);
    // One client per registered provider: a provider.ts that exports none (or two) is not read right.
    expect(PROVIDER_CLIENTS).toHaveLength(PROVIDER_NAMES.length);
    for (const { builds } of EXCEPTIONS) expect(classes.get(builds)?.holds || ALSO_SERVICES.includes(builds), builds).toBe(true);
  });

  it('finds a service constructed elsewhere (the check can fail)', () => {
    const declared: SourceFile[] = [
      { file: 'src/members/devices.ts', text: 'export class Devices {\n  constructor(private readonly redis: Redis, key: string) {}\n}' },
      {
        file: 'src/stats/counter.ts',
        text: 'export class Counter {\n  constructor(db: Db) {}\n  static fromConfig(c: Config) { return new Counter(c.db); }\n}',
      },
      {
        file: 'src/hooks/hook-service.ts',
        text: 'export interface HookDeps { db: Db; url: string }\nexport abstract class Sends {\n  constructor(protected readonly deps: HookDeps) {}\n}\nexport class HookService extends Sends {}',
      },
      { file: 'src/domain/median.ts', text: 'export class Median {\n  constructor(values: number[]) {}\n}' },
    ];
    const using: SourceFile[] = [
      {
        file: 'src/cli/commands/people.command.ts',
        text: 'await new Devices(resources.redis, keys.devices).forget(id);\nconst m = new Median([1]);',
      },
      { file: 'src/http/pages/page-kit.ts', text: 'const c = Counter.fromConfig(config);\nconst h = new HookService({ db, url });' },
      { file: 'jobs/count.job.ts', text: '\n\nconst c = new Counter(deps.db);' },
      { file: 'src/runtime/services.ts', text: 'new Devices(redis, k); new HookService({ db, url }); new SecretBox(key);' },
      { file: 'src/cli/commands/webhooks.command.ts', text: 'const b = SecretBox.fromConfig(config);' },
      { file: 'src/runtime/egress.ts', text: 'return new EgressPool(redis, key, routes, options);' },
    ];
    expect(constructionsOutsideRoot([...declared, ...using])).toEqual([
      'src/cli/commands/people.command.ts:1 Devices',
      'src/http/pages/page-kit.ts:1 Counter',
      'src/http/pages/page-kit.ts:2 HookService',
      'jobs/count.job.ts:3 Counter',
      'src/cli/commands/webhooks.command.ts:1 SecretBox',
    ]);
  });
});
