// The insights in other media types than JSON: what the API and the account pages answer a list page as
// CSV and a report as (a printable HTML page or Markdown), and the report page's own
// Content-Security-Policy. What is read for them is src/views/insight-report.view.ts; the rendering, in
// src/domain/reports/.
import { createHash } from 'node:crypto';
import { REPORT_STYLESHEET } from '../../../domain/reports/report-html.js';

export const MEDIA = {
  json: 'application/json',
  csv: 'text/csv',
  html: 'text/html',
  markdown: 'text/markdown',
} as const;

/** What GET /api/insights answers in, the first when the request does not say. */
export const LIST_MEDIA_TYPES = [MEDIA.json, MEDIA.csv] as const;
/** What GET /api/insights/{id}/report answers in. */
export const REPORT_MEDIA_TYPES = [MEDIA.html, MEDIA.markdown] as const;

export const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  html: 'text/html; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
} as const;

/** The next page as an RFC 8288 Link: this request's URL with the new cursor, parameters as the client spelled them. */
export function nextPageLink(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl, 'http://localhost');
  url.searchParams.set('cursor', cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}

/**
 * The report page's policy: the API's (nothing loads, nothing runs, no one
 * frames it), except its one stylesheet, allowed by its SHA-256. The
 * stylesheet is a constant, so the hash is computed once; a nonce would
 * change on every answer for nothing. No script, image, font or connection
 * is allowed, so a text that escaped its escaping still could not run or
 * fetch anything.
 */
export const REPORT_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(REPORT_STYLESHEET).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
