// Every error answers problem+json: validation failures name each bad
// parameter, a client's fault is a 4xx, Postgres or Redis away is a 503 with
// Retry-After, and anything else a logged 500. Unknown routes are a 404.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { classifyOutage } from '../../outage.js';
import { problem, ProblemError, sendProblem, type InvalidParam } from '../problem.js';
import { Refusal } from '../../domain/refusal.js';
import { problemOfRefusal } from '../api-guard/refusal.js';

/** A bounded number's whole range ("from 1 to 90"), read from the route's schema, where the validator names one bound. */
function rangeOf(schema: unknown, where: string, name: string): string | undefined {
  const property = (
    schema as Record<string, { properties?: Record<string, { type?: string; minimum?: number; maximum?: number }> } | undefined>
  )?.[where]?.properties?.[name];
  if (property?.minimum === undefined || property.maximum === undefined) return undefined;
  return `must be ${property.type === 'integer' ? 'a whole number' : 'a number'} from ${property.minimum} to ${property.maximum}`;
}

function validationProblem(error: FastifyError, routeSchema: unknown) {
  const where = error.validationContext ?? 'request';
  const params: InvalidParam[] = (error.validation ?? []).map((v) => {
    const name =
      (v.params as { additionalProperty?: string }).additionalProperty ??
      (v.params as { missingProperty?: string }).missingProperty ??
      (v.instancePath.replace(/^\//, '').split('/')[0] || where);
    const allowed = (v.params as { allowedValues?: string[] }).allowedValues;
    const bounded = ['minimum', 'maximum', 'type'].includes(v.keyword) ? rangeOf(routeSchema, where, name) : undefined;
    const reason = v.keyword === 'additionalProperties' ? 'is not a known parameter' : (bounded ?? v.message ?? 'is invalid');
    return { name, reason, ...(allowed ? { allowed } : {}) };
  });
  const first = params[0];
  const detail = first ? `${first.name} ${first.reason}${first.allowed ? ` (allowed: ${first.allowed.join(', ')})` : ''}` : error.message;
  return problem('invalidParameter', detail, { invalid_params: params });
}

export const errorsPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      // A view's or an access decision's refusal (src/domain/refusal.ts) is the problem of its kind.
      const known = error instanceof Refusal ? problemOfRefusal(error) : error instanceof ProblemError ? error : undefined;
      if (known) {
        reply.headers(known.headers);
        return sendProblem(reply, known.body);
      }
      if (error.validation) return sendProblem(reply, validationProblem(error, request.routeOptions.schema));
      if (error.statusCode === 413) {
        const limit = request.routeOptions.bodyLimit;
        return sendProblem(
          reply,
          problem('payloadTooLarge', `The request body is larger than this route accepts${limit ? ` (${limit} bytes)` : ''}.`),
        );
      }
      if (error.statusCode === 415) {
        return sendProblem(
          reply,
          problem(
            'unsupportedMediaType',
            `Send the body as JSON with "Content-Type: application/json" (got "${String(request.headers['content-type'] ?? '').slice(0, 60)}").`,
          ),
        );
      }
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
        return sendProblem(reply, {
          ...problem('badRequest', error.message),
          status: error.statusCode,
          title: STATUS_CODES[error.statusCode] ?? 'Bad Request',
        });
      }
      const outage = classifyOutage(error);
      if (outage) {
        request.log.warn({ err: error, dependency: outage.dependency, reason: outage.reason }, 'dependency unavailable');
        reply.header('retry-after', '5');
        return sendProblem(reply, problem('unavailable', 'A backing service (Postgres or Redis) is not answering. Retry shortly.'));
      }
      request.log.error({ err: error }, 'unhandled error');
      return sendProblem(reply, problem('internal', 'Something went wrong on our side. It has been logged.'));
    });

    app.setNotFoundHandler((request, reply) =>
      sendProblem(reply, problem('notFound', `No route ${request.method} ${request.url.split('?')[0]}. See /docs.`)),
    );
  },
  { name: 'errors' },
);
