// The import graph of the product (src/ and jobs/) against its floors (docs/internals.md): no file imports a
// floor above its own, and no files import each other in a circle (type-only imports count: a type two files
// share belongs in a lower one). `npm run lint` runs test/unit/import-graph.test.ts, which reads the tree with
// the TypeScript compiler's parser and checks it here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The floors, bottom first: the one place the order is written down. A path ending in `/` is a folder; the
 * longest path that matches a file places it. A file no floor names fails the check, so a new folder is placed
 * on purpose.
 */
export const FLOORS = [
  // The provider registry and each provider's profile are data (what a provider is, answers, costs and reads),
  // which the domain and config consult; the providers' IO sits with the adapters.
  {
    name: 'ground',
    paths: [
      'src/domain/',
      'src/providers/registry.ts',
      // every provider's, so a new provider folder needs no line here
      'src/providers/*/profile.ts',
    ],
  },
  { name: 'base', paths: ['src/config.ts', 'src/config/', 'src/logger.ts', 'src/outage.ts', 'src/queue/'] },
  {
    name: 'adapters and repositories',
    paths: [
      'src/providers/',
      'src/insights/',
      'src/members/',
      'src/accounts/',
      'src/webhooks/',
      'src/api-keys/',
      'src/redis/',
      'src/db/',
      'src/observability/',
      'src/jsonl/',
      'src/mail/',
      // Turns taken in a Redis script: an adapter over Redis, though its folder (queue names, the job catalogue) is base.
      'src/queue/fair-share.ts',
    ],
  },
  { name: 'work', paths: ['src/research/', 'src/refresh/', 'src/demo/'] },
  { name: 'handlers', paths: ['jobs/'] },
  { name: 'composition', paths: ['src/runtime/'] },
  // What every front door reads and decides alike (the API, the pages, the CLI, an MCP server): views of the
  // stored work and the API key's decisions, with no transport in them.
  { name: 'views and access', paths: ['src/views/', 'src/api-access/'] },
  // The MCP server (src/mcp/) is a face too: its tools are requests of the API, made in-process by src/http/mcp/
  // and over the network by `insights mcp`, so it needs nothing below views and access.
  { name: 'faces', paths: ['src/http/', 'src/cli/', 'src/mcp/'] },
  { name: 'entry points', paths: ['src/start.ts', 'src/web.ts', 'src/worker.ts'] },
] as const satisfies readonly { name: string; paths: readonly string[] }[];

/** Where the check looks: the product, not tests, scripts or benchmarks (they may import any floor). */
export const ROOTS = ['src', 'jobs'] as const;

/** A file's imports: path relative to the project root (forward slashes) → the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

export type Floors = readonly { name: string; paths: readonly string[] }[];

/**
 * The floor of a file (its index in `floors`, 0 at the bottom), or null when no floor names it. A path ending
 * in `/` names a folder, one with `*` a pattern (`*` is one path segment), any other one file; the longest wins.
 */
export function floorOf(file: string, floors: Floors = FLOORS): number | null {
  let best: { floor: number; length: number } | null = null;
  floors.forEach((f, floor) => {
    for (const p of f.paths) {
      const matches = p.includes('*')
        ? new RegExp(
            `^${p
              .split('*')
              .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
              .join('[^/]+')}$`,
          ).test(file)
        : p.endsWith('/')
          ? file.startsWith(p)
          : file === p;
      if (matches && (!best || p.length > best.length)) best = { floor, length: p.length };
    }
  });
  return (best as { floor: number } | null)?.floor ?? null;
}

/** The module specifiers a file imports, type-only and dynamic imports included. */
export function specifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      found.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteral(e)) found.push(e.text);
    } else if (ts.isImportTypeNode(node)) {
      const a = node.argument;
      if (ts.isLiteralTypeNode(a) && ts.isStringLiteral(a.literal)) found.push(a.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [a] = node.arguments;
      if (a && ts.isStringLiteralLike(a)) found.push(a.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return entry.endsWith('.ts') && !entry.endsWith('.d.ts') ? [full] : [];
  });
}

/** The graph of the TypeScript files under `roots` in `projectRoot`, through their relative imports. */
export function readImportGraph(projectRoot: string, roots: readonly string[] = ROOTS): ImportGraph {
  const graph = new Map<string, string[]>();
  const relative = (full: string) => path.relative(projectRoot, full).split(path.sep).join('/');
  for (const root of roots)
    for (const full of tsFiles(path.join(projectRoot, root))) {
      const targets = specifiersOf(full, readFileSync(full, 'utf8'))
        .filter((s) => s.startsWith('.'))
        .map((s) => path.resolve(path.dirname(full), s.replace(/\.js$/, '.ts')))
        // A .json, .lua or other asset is not a module of the graph.
        .filter((t) => t.endsWith('.ts') && existsSync(t))
        .map(relative);
      graph.set(relative(full), [...new Set(targets)]);
    }
  return graph;
}

/** Every circle of imports (the files of each strongly connected component with more than one file, or a self-import), each sorted. */
export function importCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative so a deep chain of imports cannot overflow the stack.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work.at(-1)!;
      const edges = graph.get(top.node) ?? [];
      if (top.edge < edges.length) {
        const to = edges[top.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== top.node);
        if (component.length > 1 || (graph.get(top.node) ?? []).includes(top.node)) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

export interface Violation {
  file: string;
  message: string;
}

/** Every import that climbs to a higher floor, and every file no floor names. */
export function upwardImports(graph: ImportGraph, floors: Floors = FLOORS): Violation[] {
  const violations: Violation[] = [];
  for (const [file, targets] of graph) {
    const from = floorOf(file, floors);
    if (from === null) {
      violations.push({ file, message: 'is on no floor: add its folder to FLOORS in scripts/import-graph.ts (docs/internals.md)' });
      continue;
    }
    for (const target of targets) {
      const to = floorOf(target, floors);
      if (to !== null && to > from)
        violations.push({
          file,
          message: `(${floors[from]!.name}) imports ${target} (${floors[to]!.name}), a floor above it: move what they share down (docs/internals.md)`,
        });
    }
  }
  return violations;
}
