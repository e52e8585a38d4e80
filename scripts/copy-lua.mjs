// `npm run build`: the Redis scripts (src/**/lua/*.lua) go beside the compiled
// modules that read them (dist/src/**/lua/), which tsc does not copy.
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
for (const entry of readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.lua')) continue;
  const from = path.join(entry.parentPath, entry.name);
  cpSync(from, path.join(root, 'dist', path.relative(root, from)));
}
