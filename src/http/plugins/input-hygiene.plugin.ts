// What no parameter may be, whatever its route's schema says.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { controlCharacterProblem, escapeForTerminal } from '../../domain/text.js';
import { invalidParam } from '../problem.js';

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
