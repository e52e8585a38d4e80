// The Trends API's answers in the shapes it published (developers.google.com/search/apis/trends,
// the alpha announcement of 2025-07-24, and the API's discovery of v1alpha): a long-running
// operation, the points under response.timeSeries.points or response.geoBreakdown.points,
// and Google's error envelope. Where the published shapes say no more, the choice made is
// listed in docs/providers.md ("What the Trends API is asked"). The schemas are the contract:
// an answer that does not match is a changed shape (MalformedResponseError), never read as data.
import { Type, type Static } from '@sinclair/typebox';
import { shapeExpecter } from '../expect-shape.js';

/** google.type.Date, as Google's APIs write a day. */
export const DaySchema = Type.Object({ year: Type.Integer(), month: Type.Integer(), day: Type.Integer() });
export type ApiDay = Static<typeof DaySchema>;

/** One point: searchInterest is comparable across requests (two significant figures), scaledSearchInterest is 100 at the answer's largest. */
const interest = {
  searchInterest: Type.Number({ minimum: 0 }),
  scaledSearchInterest: Type.Optional(Type.Number({ minimum: 0 })),
};
export const TimeSeriesSchema = Type.Object({
  timeSeries: Type.Object({ points: Type.Array(Type.Object({ date: DaySchema, ...interest })) }),
});
export const GeoBreakdownSchema = Type.Object({
  geoBreakdown: Type.Object({
    points: Type.Array(Type.Object({ geo: Type.String(), displayName: Type.Optional(Type.String()), ...interest })),
  }),
});

/** Google's error envelope (google.rpc.Status), as an HTTP answer's body or an operation's `error`. */
export const StatusSchema = Type.Object({
  code: Type.Integer(),
  message: Type.String(),
  status: Type.Optional(Type.String()),
  details: Type.Optional(Type.Array(Type.Object({ '@type': Type.Optional(Type.String()) }, { additionalProperties: true }))),
});
export type ApiStatus = Static<typeof StatusSchema>;
export const ErrorBodySchema = Type.Object({ error: StatusSchema });

export const OperationSchema = Type.Object({
  name: Type.String({ pattern: '^operations/[A-Za-z0-9_.~-]+$' }),
  done: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Type.Unknown()),
  error: Type.Optional(StatusSchema),
  response: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
export type Operation = Static<typeof OperationSchema>;

/** The value as the schema says, or a MalformedResponseError naming where it differs. */
export const expectShape = shapeExpecter(
  (what, where) => `the Google Trends API answered ${what} in a shape it does not publish (${where}): the alpha may have changed`,
);

export const isoDay = (d: ApiDay) => `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
export const apiDay = (iso: string): ApiDay => ({
  year: Number(iso.slice(0, 4)),
  month: Number(iso.slice(5, 7)),
  day: Number(iso.slice(8, 10)),
});

/** How long a RESOURCE_EXHAUSTED answer asks to wait (google.rpc.RetryInfo's retryDelay, "30s"), if it says. */
export function retryDelayMs(status: ApiStatus): number | undefined {
  for (const detail of status.details ?? []) {
    const delay = (detail as { retryDelay?: unknown }).retryDelay;
    if (typeof delay === 'string' && /^\d+(\.\d+)?s$/.test(delay)) return Math.ceil(Number.parseFloat(delay) * 1000);
  }
  return undefined;
}
