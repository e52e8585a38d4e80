// One reading of query strings for every /api route, whichever validator the
// route uses (Fastify's Ajv with type coercion, or the webhook routes' TypeBox
// conversion): checked against the route's documented parameters before either
// sees them. A parameter the route does not document is refused (a route with
// none refuses any), and a number is written as the document says: an integer
// as digits (`limit=1.5` and `limit=1e1` were read as 1 and 10 by one route or
// another), a number as a decimal (0.5, .5 or 5e-1).
import type { FastifyRequest } from 'fastify';
import { invalidParam } from './problem.js';

const INTEGER = /^-?\d{1,15}$/;
// A decimal number as people and JSON write it (0.5, .5, 5e-1); never hexadecimal, binary, blank or with spaces.
const NUMBER = /^-?(\d{1,15}(\.\d{0,15})?|\.\d{1,15})([eE][-+]?\d{1,3})?$/;

interface QuerySchema {
  properties?: Record<string, { type?: string; minimum?: number; maximum?: number }>;
}

/** "from 1 to 90" when the parameter is bounded on both sides (the same words the validator's refusals use). */
const rangeOf = (p: { minimum?: number; maximum?: number }) =>
  p.minimum !== undefined && p.maximum !== undefined ? ` from ${p.minimum} to ${p.maximum}` : '';

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
      throw invalidParam(name, `must be a whole number${rangeOf(property)}, in digits (got "${raw.slice(0, 20)}")`);
    if (property.type === 'number' && !NUMBER.test(raw))
      throw invalidParam(name, `must be a number${rangeOf(property)}, such as 0.5 (got "${raw.slice(0, 20)}")`);
  }
}
