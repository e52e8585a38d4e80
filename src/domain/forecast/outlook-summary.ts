// The outlook as the insight keeps it (insights.outlook, API `outlook`): forecast's output, as outlook.ts computes it.
export type { Outlook as OutlookSummary } from './outlook.js';
