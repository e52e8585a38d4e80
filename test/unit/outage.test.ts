import { describe, expect, it } from 'vitest';
import { classifyOutage } from '../../src/outage.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code, name: 'error', severity: 'FATAL' });
const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

describe('outages are told apart from bugs and bad input', () => {
  it('by SQLSTATE class: connection, shutdown, resources, missing database, authentication', () => {
    for (const code of ['08006', '08001', '57P01', '57P03', '53300', '3D000', '28P01', '40001', '58030']) {
      expect(classifyOutage(pgError(code))?.dependency, code).toBe('postgres');
    }
    for (const code of ['22P02', '42P01', '23505', '42703']) expect(classifyOutage(pgError(code)), code).toBeUndefined();
  });

  it("by pg's and ioredis's own error types and by socket codes", () => {
    expect(classifyOutage(new Error('Connection terminated unexpectedly'))?.dependency).toBe('postgres');
    expect(classifyOutage(new Error('timeout exceeded when trying to connect'))?.dependency).toBe('postgres');
    expect(
      classifyOutage(
        Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }),
      )?.dependency,
    ).toBe('redis');
    expect(classifyOutage(new Error('Connection is closed.'))?.dependency).toBe('redis');
    // A Redis Cluster client refreshing its slot map after a failover (the cluster chaos soak answered these 500).
    expect(classifyOutage(new Error("Cluster isn't ready and enableOfflineQueue options is false"))?.dependency).toBe('redis');
    expect(classifyOutage(replyError('LOADING Redis is loading the dataset in memory'))?.dependency).toBe('redis');
    expect(classifyOutage(replyError('CLUSTERDOWN The cluster is down'))?.dependency).toBe('redis');
    // A promoted replica has no scripts: a NOSCRIPT that escaped a client's fallback is the failover's (503).
    expect(classifyOutage(replyError('NOSCRIPT No matching script. Please use EVAL.'))?.dependency).toBe('redis');
    // ioredis's EXECABORT names the errors that aborted the MULTI.
    const aborted = (inner: string) =>
      Object.assign(replyError('EXECABORT Transaction discarded because of previous errors.'), { previousErrors: [replyError(inner)] });
    expect(classifyOutage(aborted('CLUSTERDOWN The cluster is down'))?.dependency).toBe('redis');
    expect(classifyOutage(aborted('ERR unknown command'))).toBeUndefined();
    expect(classifyOutage(replyError('ERR wrong number of arguments'))).toBeUndefined();
    expect(classifyOutage(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))?.dependency).toBe(
      'network',
    );
    expect(classifyOutage(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]))).toBeDefined();
    expect(classifyOutage(new TypeError('cannot read properties of undefined'))).toBeUndefined();
    expect(classifyOutage('a string')).toBeUndefined();
  });
});
