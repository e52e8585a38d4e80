// What no parameter may be, whatever its route's schema says.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { controlCharacterProblem, escapeForTerminal } from '../../domain/text.js';
import { invalidParam } from '../problem.js';

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

export const inputHygienePlugin = fp(async (app: FastifyInstance) => {
  // No text parameter may hold a control character: Postgres refuses NUL
  // outright, and the others have no place in any parameter and end up in logs
  // and terminals. Checked as sent, before any route trims or splits it.
  app.addHook('preValidation', async (request) => {
    for (const part of [request.query, request.params] as unknown[]) {
      if (typeof part !== 'object' || part === null) continue;
      for (const [name, value] of Object.entries(part)) {
        const badName = controlCharacterProblem(name);
        if (badName) throw invalidParam(escapeForTerminal(name), `is a parameter name that ${badName}`);
        for (const text of [value].flat()) {
          const control = typeof text === 'string' ? controlCharacterProblem(text) : null;
          if (control) throw invalidParam(name, control);
        }
      }
    }
    // JSON bodies too (the webhook writes): Postgres refuses NUL in text and jsonb alike.
    if (request.body !== undefined) {
      const found = bodyProblem(request.body, '');
      if (found) throw invalidParam(found.name || 'body', found.reason);
    }
  });

  // Ajv coerces "Infinity" and "1e400" to Infinity and then skips minimum and
  // maximum for non-finite numbers, so a validated number can still be one
  // Postgres rejects. Every number that passed validation must also be finite.
  app.addHook('preHandler', async (request) => {
    for (const part of [request.query, request.params] as unknown[]) {
      if (typeof part !== 'object' || part === null) continue;
      for (const [name, value] of Object.entries(part)) {
        if (typeof value === 'number' && !Number.isFinite(value)) throw invalidParam(name, 'must be a finite number');
      }
    }
  });
}, { name: 'input-hygiene' });
