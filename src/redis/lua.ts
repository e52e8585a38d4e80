// Redis scripts live in .lua files beside the module that runs them (read once,
// when the module loads): a reviewer reads Lua as Lua, with its own highlighting,
// and `npm run build` copies them next to the compiled code.
import { readFileSync } from 'node:fs';

/** The script at `relative` to the module whose `import.meta.url` is `moduleUrl`. */
export function lua(moduleUrl: string, relative: string): string {
  return readFileSync(new URL(relative, moduleUrl), 'utf8');
}
