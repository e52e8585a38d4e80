// One reading of query strings for every /api route, whichever validator the
// route uses (Fastify's Ajv with type coercion, or the webhook routes' TypeBox
// conversion): checked against the route's documented parameters before either
// sees them. A parameter the route does not document is refused (a route with
// none refuses any), and a number is written as the document says: an integer
// as digits (`limit=1.5` and `limit=1e1` were read as 1 and 10 by one route or
// another), a number as a plain decimal.
import type { FastifyRequest } from 'fastify';
import { invalidParam } from './problem.js';

const INTEGER = /^-?\d{1,15}$/;
const NUMBER = /^-?\d{1,15}(\.\d{1,15})?$/;

interface QuerySchema {
  properties?: Record<string, { type?: string }>;
}

export function checkQuery(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  const names = Object.keys(query);
  if (names.length === 0) return;
  const schema = (request.routeOptions.schema as { querystring?: QuerySchema } | undefined)?.querystring;
  const properties = schema?.properties ?? {};
  for (const name of names) {
    const property = properties[name];
    if (!property) {
      const known = Object.keys(properties);
      throw invalidParam(name.slice(0, 60), 'is not a known parameter', known.length > 0 ? known : undefined);
    }
    const raw = query[name];
    // Given twice: the validator says so (it is not one value).
    if (typeof raw !== 'string') continue;
    if (property.type === 'integer' && !INTEGER.test(raw))
      throw invalidParam(name, `must be a whole number written in digits (got "${raw.slice(0, 20)}")`);
    if (property.type === 'number' && !NUMBER.test(raw))
      throw invalidParam(name, `must be a number such as 0.5 (got "${raw.slice(0, 20)}")`);
  }
}
