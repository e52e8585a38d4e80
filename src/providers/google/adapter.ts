// Live Google is asked through the trends queue (one pace for every worker,
// jobs/trends-fetch.job.ts runs the client): its gateway is the queue's, which
// the process that opened the queue gives.
import type { GatewayFactory } from '../gateway-factory.js';

export const createGateway: GatewayFactory<unknown> = ({ queued, purpose }) => {
  if (!queued) throw new Error('live Google is asked through the trends queue, which this process has not opened');
  return queued(purpose);
};
