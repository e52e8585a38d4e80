// Every Redis key and channel name, built from the configured prefix. With a
// {hash tag} prefix all of them land in one Redis Cluster slot, which the quota
// script needs (it touches two keys).

export function redisKeys(prefix: string) {
  return {
    quota: (apiKeyId: string, day: string) => `${prefix}:quota:${apiKeyId}:${day}`,
    readModelVersion: `${prefix}:read-model:version`,
    readModelChannel: `${prefix}:read-model:changed`,
    apiKeyRevokedChannel: `${prefix}:api-keys:revoked`,
    subscriptionsVersion: `${prefix}:webhooks:subscriptions-version`,
    /** Egress routes to Google and their daily budget (see egress-pool.ts). */
    trendsPool: `${prefix}:trends`,
  };
}
export type RedisKeys = ReturnType<typeof redisKeys>;
