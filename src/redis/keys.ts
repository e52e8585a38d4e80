// Every Redis key and channel, in one place. The layout is made for Redis
// Cluster and is the same on a single server:
//
//   {<prefix>:<queue>}:<queue>:…       each BullMQ queue in a hash tag of its
//                                      own, so the queues spread over the shards
//                                      (BullMQ's scripts touch one queue's keys)
//   {<prefix>:q:<owner>}:<day>         one quota counter per key (per account once
//                                      accounts exist): the quota script touches
//                                      only that one key
//   {<prefix>:rm}:version, :lsn        the read-model version and the Postgres WAL
//                                      position of the write that set it (written
//                                      together by one script)
//   {<prefix>:webhooks}:…              the subscription index's version
//   {<prefix>:trends}:…                the egress routes' rates, pauses and budget
//                                      (the route script touches all routes)
//   <prefix>:read-model:changed        pub/sub channels: not keys, no slot
//   <prefix>:api-keys:revoked
//
// No single tag holds everything: the quota counters, the queues and the rest
// hash to different slots. Changing the layout orphans queued jobs: drain the
// queues before a deploy that changes it (see CHANGELOG.md).

export function redisKeys(prefix: string) {
  const readModel = `{${prefix}:rm}`;
  return {
    /** BullMQ's `prefix` option for one queue: its own hash tag. */
    queuePrefix: (queue: string) => `{${prefix}:${queue}}`,
    quota: (owner: string, day: string) => `{${prefix}:q:${owner}}:${day}`,
    readModelVersion: `${readModel}:version`,
    readModelLsn: `${readModel}:lsn`,
    readModelChannel: `${prefix}:read-model:changed`,
    apiKeyRevokedChannel: `${prefix}:api-keys:revoked`,
    subscriptionsVersion: `{${prefix}:webhooks}:subscriptions-version`,
    /** Egress routes to Google and their daily budget (see egress-pool.ts). */
    trendsPool: `{${prefix}:trends}`,
  };
}
export type RedisKeys = ReturnType<typeof redisKeys>;
