// Shed load instead of letting latency grow without bound: when the event loop
// lags, answer 503 + Retry-After at once (health checks included: a lagging
// process should look unready). under-pressure samples on its own timer and
// stops it when the app closes.
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { problem, sendProblem } from '../problem.js';

export interface OverloadOptions {
  /** Event-loop delay (ms) above which requests are shed; 0 turns shedding off (tests). */
  maxEventLoopDelayMs?: number;
  /** How often the event loop is sampled (ms). */
  sampleIntervalMs?: number;
}

export const overloadPlugin = fp(
  async (app: FastifyInstance, options: OverloadOptions) => {
    await app.register(underPressure, {
      maxEventLoopDelay: options.maxEventLoopDelayMs ?? 500,
      sampleInterval: options.sampleIntervalMs ?? 250,
      retryAfter: 5,
      pressureHandler: (_request, reply, type, value) => {
        reply.header('retry-after', '5');
        void sendProblem(
          reply,
          problem('unavailable', `The service is overloaded (${type}: ${Math.round(Number(value))}); retry in a few seconds.`),
        );
      },
    });
  },
  { name: 'overload' },
);
