// Every CLI command that touches Postgres or Redis opens them the same way and
// must close them on every exit path, errors included. Its services come from
// the composition root (src/runtime/services.ts), built on first use: a command
// opens only what it asks for.
import { openResources, type Resources } from '../runtime/resources.js';
import { buildServices, type Services } from '../runtime/services.js';
import type { CliContext } from './context.js';

export async function withServices<T>(context: () => CliContext, fn: (services: Services, ctx: CliContext) => Promise<T>): Promise<T> {
  const ctx = context();
  const resources = await openResources(ctx.config, ctx.logger);
  const services = buildServices(resources, ctx.config, ctx.logger);
  try {
    return await fn(services, ctx);
  } finally {
    await services.close();
    await resources.close();
  }
}

export function withResources<T>(context: () => CliContext, fn: (resources: Resources, ctx: CliContext) => Promise<T>): Promise<T> {
  return withServices(context, (services, ctx) => fn(services.resources, ctx));
}
