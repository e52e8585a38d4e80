// Where the project is, for the settings that name its folders.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, whether running from src/ (tests) or dist/src/ (built). */
export const PROJECT_ROOT = (() => {
  const src = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  return path.basename(path.dirname(src)) === 'dist' ? path.resolve(src, '../..') : path.resolve(src, '..');
})();
