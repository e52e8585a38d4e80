// A parked delivery is named in its account's parked set by its job's id; the
// job carrying it reads the delivery from that id (delivery-runner.ts carryOn),
// so the id and its reading must agree, replays included.
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { jobIdOf } from '../../src/queue/enqueue.js';
import { deliveryPayload, JOB } from '../../src/queue/job-catalogue.js';
import { deliveryIdOfJob } from '../../src/webhooks/delivery-runner.js';

describe('the delivery a deliver job names', () => {
  it('reads back the delivery of a first delivery and of a replay', () => {
    const id = newId('delivery');
    expect(deliveryIdOfJob(jobIdOf(JOB.webhookDeliver, deliveryPayload({ id }))!)).toBe(id);
    expect(deliveryIdOfJob(jobIdOf(JOB.webhookDeliver, deliveryPayload({ id, replays: 3 }))!)).toBe(id);
  });

  it('names none for another job', () => {
    expect(deliveryIdOfJob(`match-${newId('event')}`)).toBeUndefined();
    expect(deliveryIdOfJob('deliver-')).toBeUndefined();
  });
});
