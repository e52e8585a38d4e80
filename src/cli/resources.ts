// Every CLI command that touches Postgres or Redis opens them the same way and
// must close them on every exit path, errors included.
import { openResources, type Resources } from '../runtime/resources.js';
import type { CliContext } from './context.js';

export async function withResources<T>(context: () => CliContext, fn: (resources: Resources, ctx: CliContext) => Promise<T>): Promise<T> {
  const ctx = context();
  const resources = await openResources(ctx.config, ctx.logger);
  try {
    return await fn(resources, ctx);
  } finally {
    await resources.close();
  }
}
