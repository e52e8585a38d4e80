// What no parameter may be, whatever its route's schema says.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { controlCharacterProblem, escapeForTerminal } from '../../domain/text.js';
import { invalidParam, type ProblemError } from '../problem.js';

// Ajv's coercion reads a number the way JavaScript's Number() does, so "0x1",
// "0b1", " 1 " and "" (as 0) would all pass as numbers. What each parameter was
// as sent is kept here so a number can be held to the decimal spelling the
// docs promise.
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const sentAs = new WeakMap<object, Readonly<Record<string, unknown>>>();
const PLAIN_URL = /^[\x21-\x24\x26-\x7e]*$/;

/**
 * The refusal of a request whose query or path parameters (names or values)
 * hold a control character, if they do. Also used where a plugin's own error
 * handler would turn a thrown refusal into a 500 (the queue dashboard).
 */
export function controlCharacterRefusal(request: FastifyRequest): ProblemError | undefined {
  for (const part of [request.query, request.params] as unknown[]) {
    if (typeof part !== 'object' || part === null) continue;
    for (const [name, value] of Object.entries(part)) {
      const badName = controlCharacterProblem(name);
      if (badName) return invalidParam(escapeForTerminal(name), `is a parameter name that ${badName}`);
      for (const text of [value].flat()) {
        const control = typeof text === 'string' ? controlCharacterProblem(text) : null;
        if (control) return invalidParam(name, control);
      }
    }
  }
  return undefined;
}

/**
 * The first string in a JSON body holding a control character, or number that
 * is not finite, with where it is (e.g. keywords[2]). The body's depth and size
 * are bounded by its schema and the route's bodyLimit before this runs.
 */
function bodyProblem(value: unknown, where: string, depth = 0): { name: string; reason: string } | null {
  if (typeof value === 'string') {
    const control = controlCharacterProblem(value);
    return control ? { name: where, reason: control } : null;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? null : { name: where, reason: 'must be a finite number' };
  if (typeof value !== 'object' || value === null || depth > 8) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = bodyProblem(value[i], `${where}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [name, inner] of Object.entries(value)) {
    const badName = controlCharacterProblem(name);
    if (badName) return { name: escapeForTerminal(name), reason: `is a field name that ${badName}` };
    const found = bodyProblem(inner, where ? `${where}.${name}` : name, depth + 1);
    if (found) return found;
  }
  return null;
}

export const inputHygienePlugin = fp(
  async (app: FastifyInstance) => {
    // No text parameter may hold a control character: Postgres refuses NUL
    // outright, and the others have no place in any parameter and end up in logs
    // and terminals. Checked as sent, before any route trims or splits it.
    app.addHook('preValidation', async (request) => {
      sentAs.set(request, { ...(request.query as object), ...(request.params as object) });
      // A URL of visible ASCII without a percent sign can carry no control
      // character (Node's parser refuses raw ones), so most requests skip the walk.
      if (!PLAIN_URL.test(request.url)) {
        const refusal = controlCharacterRefusal(request);
        if (refusal) throw refusal;
      }
      // JSON bodies too (the webhook writes): Postgres refuses NUL in text and jsonb alike.
      if (request.body !== undefined) {
        const found = bodyProblem(request.body, '');
        if (found) throw invalidParam(found.name || 'body', found.reason);
      }
    });

    // Ajv coerces "Infinity" and "1e400" to Infinity and then skips minimum and
    // maximum for non-finite numbers, so a validated number can still be one
    // Postgres rejects. Every number that passed validation must also be finite,
    // and must have been sent as a decimal number.
    app.addHook('preHandler', async (request) => {
      const sent = sentAs.get(request);
      for (const part of [request.query, request.params] as unknown[]) {
        if (typeof part !== 'object' || part === null) continue;
        for (const [name, value] of Object.entries(part)) {
          if (typeof value !== 'number') continue;
          if (!Number.isFinite(value)) throw invalidParam(name, 'must be a finite number');
          const raw = sent?.[name];
          if (typeof raw === 'string' && !DECIMAL.test(raw)) throw invalidParam(name, 'must be a decimal number such as 0.5');
        }
      }
    });
  },
  { name: 'input-hygiene' },
);
