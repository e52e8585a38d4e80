// The kinds of provenance, in their own file below provenance.ts and scoring/overall.ts: the overall score
// weighs each kind's certainty (SOURCE_CERTAINTY) and provenance.ts ranks insights by the overall score.
export const PROVENANCE_KINDS = ['live', 'recorded', 'simulated'] as const;
export type ProvenanceKind = (typeof PROVENANCE_KINDS)[number];
