// House-rule lint (STYLE.md), on top of `tsc --noEmit`:
//  - only src/config.ts reads process.env;
//  - no console.* in src/ or jobs/ (logs are pino, CLI output goes through src/cli/output.ts).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const problems = [];

async function* files(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (entry.name.endsWith('.ts')) yield full;
  }
}

for (const folder of ['src', 'jobs']) {
  for await (const file of files(path.join(root, folder))) {
    const rel = path.relative(root, file);
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      if (/process\.env\b/.test(code) && rel !== 'src/config.ts') {
        problems.push(`${rel}:${i + 1}: only src/config.ts may read process.env`);
      }
      if (/\bconsole\.(log|info|warn|error|debug)\b/.test(code)) {
        problems.push(`${rel}:${i + 1}: use the pino logger (or src/cli/output.ts for CLI output), not console`);
      }
    });
  }
}

if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('lint: house rules hold\n');
