// Every Redis key and channel, in one place. The layout is made for Redis
// Cluster and is the same on a single server:
//
//   {<prefix>:<queue>}:<queue>:…       each BullMQ queue in a hash tag of its
//                                      own, so the queues spread over the shards
//                                      (BullMQ's scripts touch one queue's keys)
//   {<prefix>:q:<account>}:<day>       an account's quota counter for a UTC day, and
//   {<prefix>:q:<account>}:<day>:keys  beside it (same tag) each key's share: the
//                                      quota script touches only these two.
//                                      (Before accounts, the tag held a key id.)
//   {<prefix>:rm}:version, :lsn        the read-model version and the Postgres WAL
//                                      position of the write that set it (written
//                                      together by one script)
//   {<prefix>:webhooks}:…              the subscription index's version
//   {<prefix>:idem:<account>}:<hash>   an Idempotency-Key's claim and first answer (24 h)
//   {<prefix>:trends}:…                the egress routes' rates, pauses and budget
//                                      (the route script touches all routes)
//   {<prefix>:trends-waiters}:<job>    the jobs asleep until a trends job answers
//   {<prefix>:providers}:…             paid providers' pace, spend, day's answers and account problem
//   {<prefix>:signin}:…                the account pages' sign-in attempts per address and client
//   <prefix>:read-model:changed        pub/sub channels: not keys, no slot
//   <prefix>:api-keys:changed
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
    /** Each key's requests of the account that day (a hash, in the counter's hash tag). */
    quotaKeys: (accountId: string, day: string) => `{${prefix}:q:${accountId}}:${day}:keys`,
    readModelVersion: `${readModel}:version`,
    readModelLsn: `${readModel}:lsn`,
    readModelChannel: `${prefix}:read-model:changed`,
    /** Key or account ids whose cached keys every web process drops (revoked, rotated, plan changed, suspended). */
    apiKeyChangesChannel: `${prefix}:api-keys:changed`,
    subscriptionsVersion: `{${prefix}:webhooks}:subscriptions-version`,
    /** An account's pings in one minute (a fixed window, kept two minutes). */
    webhookPings: (accountId: string, minute: number) => `{${prefix}:webhooks}:pings:${accountId}:${minute}`,
    /** Deliveries in flight per account, and each subscription's circuit (see webhooks/delivery-gate.ts). */
    webhookInFlight: (owner: string) => `{${prefix}:webhooks}:in-flight:${owner}`,
    webhookCircuit: (subscriptionId: string) => `{${prefix}:webhooks}:circuit:${subscriptionId}`,
    /** An account's deliveries asleep until it frees a slot, in arrival order; and the parked jobs handed a slot (see webhooks/delivery-gate.ts). */
    webhookParked: (owner: string) => `{${prefix}:webhooks}:parked:${owner}`,
    webhookWakes: `{${prefix}:webhooks}:wakes`,
    /** An account's Idempotency-Key (by its hash): the request's fingerprint and, once answered, the sealed answer. */
    idempotency: (accountId: string, keyHash: string) => `{${prefix}:idem:${accountId}}:${keyHash}`,
    /** Sign-in attempts for one address (its SHA-256) in the account pages' window, and one client's sign-in attempts (see members/sign-in-limiter.ts). */
    signInEmail: (emailHash: string) => `{${prefix}:signin}:email:${emailHash}`,
    signInClient: (client: string) => `{${prefix}:signin}:client:${client}`,
    /** Sign-in attempts against the members of one account (same slot as the two above: one script counts all three). */
    signInAccount: (accountId: string) => `{${prefix}:signin}:account:${accountId}`,
    /** The browsers a person signed in from (a sorted set of device cookie hashes by last sign-in; see members/known-devices.ts). */
    signInDevices: (personId: string) => `{${prefix}:signin}:devices:${personId}`,
    /** What an account page shows once after a form that changed something redirected to it (POST/Redirect/GET): per session (its id's hash) and page. */
    pageFlash: (sessionHash: string, tab: string) => `{${prefix}:pages}:flash:${sessionHash}:${tab}`,
    /** Account pages opened in the current minute, per session (`session:<id hash>`) and per account (`account:<id>`); see members/page-limiter.ts. */
    pageRequests: (who: string) => `{${prefix}:pages}:requests:${who}`,
    /** Egress routes to Google and their daily budget (see egress-pool.ts). */
    trendsPool: `{${prefix}:trends}`,
    /** The jobs asleep until a trends job answers ("queue|job id"), woken when it does (see research/queued-gateway.ts). */
    trendsWaiters: (trendsJobId: string) => `{${prefix}:trends-waiters}:${trendsJobId}`,
    /** A paid provider's tasks in one minute, per endpoint (a fixed window, kept two minutes). */
    providerPace: (provider: string, endpoint: string, minute: number) => `{${prefix}:providers}:pace:${provider}:${endpoint}:${minute}`,
    /** A paid provider's requests and spend on a UTC day, by purpose (a hash, kept 40 days). */
    providerSpend: (provider: string, day: string) => `{${prefix}:providers}:spend:${provider}:${day}`,
    /** What a paid provider billed one research run (a hash, kept 40 days): the cost per run in `insights budget`. */
    providerRunSpend: (provider: string, runId: string) => `{${prefix}:providers}:run:${provider}:${runId}`,
    /** A paid provider's answer to one request on a UTC day (asked once a day, as Google's trends jobs are). */
    providerAnswer: (provider: string, requestHash: string) => `{${prefix}:providers}:answer:${provider}:${requestHash}`,
    /** The account problem a paid provider last reported (wrong password, no money), until an answer clears it. */
    providerProblem: (provider: string) => `{${prefix}:providers}:problem:${provider}`,
  };
}
export type RedisKeys = ReturnType<typeof redisKeys>;
