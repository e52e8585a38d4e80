// The /api/usage schemas (TypeBox).
import { Type } from '@sinclair/typebox';
import { PLAN_VALUES } from '../../domain/quota.js';
import { stringEnum } from './common.js';

export const UsageQuery = Type.Object(
  { days: Type.Integer({ minimum: 1, maximum: 90, default: 1, description: 'How many UTC days, today included (1–90)' }) },
  { additionalProperties: false },
);

export const UsageSchema = Type.Object({
  data: Type.Object({
    account_id: Type.String(),
    account_name: Type.String(),
    key_id: Type.String({ description: 'The key this request was made with' }),
    plan: stringEnum(PLAN_VALUES),
    day: Type.String({ format: 'date' }),
    limit: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited (Enterprise)' }),
    used: Type.Integer({ description: "Today's requests of the account, over all its keys, this one included" }),
    remaining: Type.Union([Type.Integer(), Type.Null()]),
    resets_at: Type.String({ format: 'date-time' }),
    research: Type.Union(
      [
        Type.Object({
          limit: Type.Integer({ description: 'Research runs the plan allows a UTC day (POST /api/research-runs)' }),
          used: Type.Integer({ description: 'Runs charged today, after any given back' }),
          remaining: Type.Integer(),
          refunded: Type.Integer({
            description:
              "Runs of today's given back because they failed through no fault of the idea: the provider could not be reached or refused the requests",
          }),
          resets_at: Type.String({ format: 'date-time' }),
        }),
        Type.Null(),
      ],
      { description: "Today's research allowance; null where research on demand is not configured" },
    ),
    days: Type.Array(
      Type.Object({
        day: Type.String({ format: 'date' }),
        requests: Type.Integer(),
        keys: Type.Array(Type.Object({ key_id: Type.String(), name: Type.Union([Type.String(), Type.Null()]), requests: Type.Integer() })),
      }),
      { description: 'Newest first: today from the live counter, earlier days as stored (days without requests are left out)' },
    ),
  }),
});
