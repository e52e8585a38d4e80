// The frame of every account page: one h1, landmarks (header, nav, main), the tabs
// with aria-current on the one shown, and the one same-origin stylesheet (the pages'
// Content-Security-Policy allows nothing inline). Markup is built with the html tag
// (domain/html.ts), which escapes every text it is given; the document around it is
// htmlDocument, the frame the printable report uses too.
import { html, htmlDocument, type Html } from '../../domain/html.js';

export const STYLESHEET_PATH = '/account/assets/account.css';
/** The pages' icon (else a browser asks for /favicon.ico, which this service does not have). */
export const ICON_PATH = '/account/assets/icon.svg';
export const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0645ad"/><path d="M3 12l3-4 3 2 4-6" stroke="#fff" stroke-width="2" fill="none"/></svg>';

export const TABS = [
  { id: 'overview', label: 'Overview', href: '/account' },
  { id: 'insights', label: 'Insights', href: '/account/insights' },
  { id: 'keys', label: 'API Keys', href: '/account/keys' },
  { id: 'webhooks', label: 'Webhooks', href: '/account/webhooks' },
  { id: 'research', label: 'Research', href: '/account/research' },
  { id: 'people', label: 'People', href: '/account/people' },
] as const;
export type TabId = (typeof TABS)[number]['id'];

export interface PageFrame {
  title: string;
  /** The signed-in person and their form token: the tabs and the sign-out button. */
  signedIn?: { email: string; role: string; accountName: string; csrf: string; tab: TabId };
  body: Html;
  /** Reloads the page every so many seconds (a run under way): a meta refresh, as the pages' policy allows no script. */
  refreshSeconds?: number;
}

export function renderPage(frame: PageFrame): string {
  const s = frame.signedIn;
  const nav = s
    ? html`<nav aria-label="Account settings"><ul class="tabs">${TABS.map(
        (t) => html`<li><a href="${t.href}"${t.id === s.tab && html` aria-current="page"`}>${t.label}</a></li>`,
      )}</ul></nav>`
    : '';
  const who = s
    ? html`<form method="post" action="/account/sign-out" class="who"><span>${s.email} (${s.role}) · ${s.accountName}</span>${hidden('csrf', s.csrf)}<button type="submit">Sign out</button></form>`
    : '';
  const head = html`${frame.refreshSeconds ? html`<meta http-equiv="refresh" content="${frame.refreshSeconds}">\n` : ''}<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
`;
  const body = html`<header><p class="brand">Startup Insights · account</p>${who}${nav}</header>
<main>
<h1>${frame.title}</h1>
${frame.body}
</main>`;
  return String(htmlDocument({ title: `${frame.title} · Startup Insights`, head, body }));
}

/** A short notice: an error (role alert) or a confirmation (role status). */
export const notice = (kind: 'error' | 'ok', text: string): Html =>
  html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;

export const hidden = (name: string, value: string): Html => html`<input type="hidden" name="${name}" value="${value}">`;

export const STYLESHEET = `
:root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; color: #1a1a1a; background: #fafafa; }
header { background: #fff; border-bottom: 1px solid #ccc; padding: 0.5rem 1.5rem; }
.brand { margin: 0; font-weight: 600; }
.who { float: right; display: flex; gap: 0.5rem; align-items: center; }
.tabs { list-style: none; display: flex; gap: 1rem; padding: 0; margin: 0.5rem 0 0; }
.tabs a { display: inline-block; padding: 0.25rem 0.5rem; color: #0645ad; }
.tabs a[aria-current="page"] { font-weight: 700; border-bottom: 3px solid #0645ad; text-decoration: none; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #d35400; outline-offset: 2px; }
label { display: block; margin: 0.5rem 0 0.2rem; font-weight: 600; }
fieldset label { display: inline; font-weight: 400; margin-right: 1rem; }
input[type="text"], input[type="email"], input[type="password"], select { padding: 0.35rem; font-size: 1rem; min-width: 18rem; }
input.secret { font-family: ui-monospace, monospace; width: 100%; max-width: 40rem; }
button { margin-top: 0.75rem; padding: 0.4rem 0.9rem; font-size: 1rem; cursor: pointer; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; background: #fff; }
th, td { border: 1px solid #ccc; padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; }
td form { display: inline; }
td button { margin: 0 0.25rem 0 0; padding: 0.15rem 0.5rem; }
.notice { padding: 0.5rem 0.75rem; border-radius: 4px; }
.notice.error { background: #fdecea; border: 1px solid #b3261e; }
.notice.ok { background: #e8f5e9; border: 1px solid #2e7d32; }
.usage-chart { width: 100%; max-width: 40rem; height: auto; background: #fff; border: 1px solid #ccc; }
.usage-chart .bar { fill: #0645ad; }
.usage-chart .axis { stroke: #555; }
.usage-chart .quota { stroke: #b3261e; stroke-dasharray: 4 3; }
.usage-chart .label { font-size: 11px; fill: #333; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.25rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.filters { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: flex-end; }
.filters input[type="text"], .filters select { min-width: 10rem; }
.filters button { margin-top: 0; }
.paging { display: flex; gap: 1.5rem; margin: 0.5rem 0 1rem; }
.num { text-align: right; white-space: nowrap; }
.small { font-size: 0.85rem; color: #444; }
.muted { color: #555; }
.tag { font-size: 0.75rem; border: 1px solid #555; border-radius: 3px; padding: 0 0.25rem; font-weight: 400; }
.verdict { display: inline-block; padding: 0 0.4rem; border-radius: 3px; font-weight: 700; }
.verdict-promising { background: #e8f5e9; color: #1b5e20; border: 1px solid #2e7d32; }
.verdict-mixed { background: #fff8e1; color: #6d4c00; border: 1px solid #b28704; }
.verdict-weak { background: #fdecea; color: #8c1d18; border: 1px solid #b3261e; }
.verdict-unproven { background: #eceff1; color: #37474f; border: 1px solid #607d8b; }
.verdict-box { background: #fff; border: 1px solid #ccc; padding: 0.25rem 1rem; }
.spark { display: block; }
.spark-line { fill: none; stroke: #0645ad; stroke-width: 1.5; }
.wide { overflow-x: auto; }
/* The list's nine columns need more than the text's 60rem: the page widens for them, and scrolls inside past that (a founder's 1,280 px screen cut the sparkline off, 2026-11-28). */
main:has(table.insights) { max-width: 80rem; }
table.insights td:nth-child(2) { min-width: 12rem; }
figure.chart { margin: 0; }
figure.chart svg { max-width: 100%; height: auto; }
table.compare td, table.compare th { min-width: 8rem; }
.compare-chart { width: 100%; max-width: 40rem; height: auto; background: #fff; border: 1px solid #ccc; }
.compare-chart .axis { stroke: #555; }
.compare-chart .series { fill: none; stroke-width: 2; }
.series-0 { stroke: #0645ad; background: #0645ad; } .series-1 { stroke: #d35400; background: #d35400; } .series-2 { stroke: #2e7d32; background: #2e7d32; }
.series-3 { stroke: #7b1fa2; background: #7b1fa2; } .series-4 { stroke: #555; background: #555; }
.key { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; }
fieldset { border: 1px solid #ccc; margin: 0.5rem 0; }
.choice { display: inline-block; margin-right: 1rem; }
.choice label { display: inline; font-weight: 400; margin: 0 0 0 0.25rem; }
select[multiple] { min-width: 18rem; }
details { margin: 0.5rem 0; }
summary { cursor: pointer; color: #0645ad; }
@media print { header, .filters, .paging, form { display: none; } }
`;
