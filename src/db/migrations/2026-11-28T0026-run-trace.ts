// Issue 52: a research run is one OpenTelemetry trace. trace_id holds the W3C traceparent of the span that
// submitted the run (`00-<trace id>-<span id>-<flags>`): its trace id names the trace in the tracing backend,
// and its span id is the parent every step job's span takes, whichever worker runs the step and however the
// job was made (the next step, a retry, the sweeper). Null when tracing was off at submission, and for runs
// from before it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('research_runs').addColumn('trace_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('research_runs').dropColumn('trace_id').execute();
}
