// Content negotiation for the routes that answer in more than one media type
// (a list as JSON or CSV, a report as HTML or Markdown): the request's Accept
// header picks one (RFC 9110 §12.5.1: the most specific range that matches a
// type gives its weight; q=0 refuses it; a tie goes to the order the route
// offers them in), or the answer is a 406 naming what is offered. The choice
// is part of the response cache's key (response-cache.plugin.ts), and every
// answer says Vary: Accept, so no cache between here and the client serves
// one representation for another.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problem, ProblemError } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The media type negotiated for this request's answer (routes that offer more than one). */
    representation?: string;
  }
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** The ranges of an Accept header, lower-cased; a malformed one is skipped (as browsers and proxies do). */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const [type, subtype, extra] = (range ?? '').split('/');
    if (!type || !subtype || extra !== undefined || !TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*'))
      continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((s) => s.trim());
      if (name !== 'q') continue;
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : -1;
    }
    if (q >= 0) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The weight the ranges give a media type: that of the most specific range matching it, 0 when none does. */
function weightOf(mediaType: string, ranges: readonly MediaRange[]): number {
  const [type, subtype] = mediaType.split('/');
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' ? 0 : -1;
    if (specificity >= 0 && (!best || specificity > best.specificity)) best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

/**
 * The offered media type the Accept header prefers; the first offered when
 * there is no header (or nothing readable in it); null when it refuses them all.
 */
export function preferredMediaType(accept: string | undefined, offered: readonly string[]): string | null {
  const ranges = accept === undefined ? [] : parseAccept(accept);
  if (ranges.length === 0) return offered[0] ?? null;
  let chosen: string | null = null;
  let chosenQ = 0;
  for (const mediaType of offered) {
    const q = weightOf(mediaType, ranges);
    if (q > chosenQ) {
      chosen = mediaType;
      chosenQ = q;
    }
  }
  return chosen;
}

/** The 406 of a request whose Accept allows none of what the route answers. */
export function notAcceptable(request: FastifyRequest, offered: readonly string[]): ProblemError {
  const accept = String(request.headers.accept ?? '').slice(0, 200);
  const route = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`;
  return new ProblemError(
    problem(
      'notAcceptable',
      `${route} answers ${offered.join(' or ')}; the request's Accept header ("${accept}") allows none of them. Send Accept: ${offered[0]}, or another of them.`,
      { invalid_params: [{ name: 'Accept', reason: 'allows none of the media types this route answers', allowed: offered }] },
    ),
  );
}

/**
 * A route hook (preValidation, so before the response cache is asked): says
 * Vary: Accept, and records the media type the answer will have, or refuses
 * the request with a 406.
 */
export function negotiate(offered: readonly string[]) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.header('vary', 'Accept');
    const chosen = preferredMediaType(request.headers.accept, offered);
    if (chosen === null) throw notAcceptable(request, offered);
    request.representation = chosen;
  };
}
