#!/usr/bin/env node
// The `insights` CLI. The TypeScript is compiled by `npm ci` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('insights: the CLI is not built yet — run `npm ci` or `npm run build` in the project folder first.\n');
  process.exit(1);
}
await import(entry.href);
