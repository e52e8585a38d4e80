// The schedules: the daily refresh, discovery and the Google canary (cron, UTC).
import { EnvReader } from './env-reader.js';

export interface ScheduleConfig {
  /** Cron (UTC) of the scheduled Google canary (`insights google check` inside the first route's pace), or '' for none. */
  readonly googleCheckCron: string;
  /** Cron (UTC) of the daily refresh of every researched insight's series, forecast and scores. */
  readonly refreshCron: string;
  /** Cron (UTC) of the daily discovery of candidate ideas from Google's trending searches feed. */
  readonly discoveryCron: string;
  /** Geographies discovery reads the trending feed of. */
  readonly discoveryGeos: readonly string[];
  /** At most this many discovery research runs per UTC day. */
  readonly discoveryDailyCap: number;
}

export function loadScheduleSection(read: EnvReader): ScheduleConfig {
  const discoveryGeos = read.list('DISCOVERY_GEOS', 'US').map((geo) => geo.toUpperCase());
  for (const geo of discoveryGeos)
    read.check(/^[A-Z]{2}$/.test(geo), `DISCOVERY_GEOS: "${geo}" is not a two-letter country code such as US`);
  return Object.freeze({
    googleCheckCron: read.text('GOOGLE_CHECK_CRON') === undefined ? '' : read.cron('GOOGLE_CHECK_CRON', ''),
    refreshCron: read.cron('REFRESH_CRON', '0 3 * * *'),
    discoveryCron: read.cron('DISCOVERY_CRON', '0 4 * * *'),
    discoveryGeos: Object.freeze(discoveryGeos),
    discoveryDailyCap: read.integer('DISCOVERY_DAILY_CAP', 10, 0, 1_000),
  });
}
