// The /api/methodology and /api/catalog schemas (TypeBox).
import { Type } from '@sinclair/typebox';
import { AGREEMENT_FAMILIES } from '../../domain/scoring/evidence-agreement.js';
import { DIMENSIONS } from '../../domain/scoring/dimensions.js';
import { TREND_CLASSES } from '../../domain/scoring/trend-class.js';
import { stringEnum } from './common.js';
import { HitRate } from './insights.js';

const Figures = Type.Object({
  rank_correlation: Type.Number(),
  higher_when_rising: Type.Number(),
  higher_when_falling: Type.Number(),
  labelled_share: Type.Number(),
});
const FamilyAgreementSchema = Type.Object({
  rows: Type.Integer(),
  both_zero: Type.Integer(),
  mean_abs_difference: Type.Number(),
  rank_correlation: Type.Union([Type.Number(), Type.Null()], {
    description: 'Spearman over the rows; null when a reading is the same on every row',
  }),
  keyword_order: Type.Object({ pairs: Type.Integer(), same: Type.Integer(), opposite: Type.Integer(), tied: Type.Integer() }),
  retest_abs_difference: Type.Object({
    list: Type.Union([Type.Number(), Type.Null()]),
    modifier: Type.Union([Type.Number(), Type.Null()]),
  }),
});

export const MethodologySchema = Type.Object(
  {
    measured_on: Type.String({ format: 'date' }),
    overall: Type.Object({
      formula: Type.String(),
      weights: Type.Record(Type.String(), Type.Number()),
      designed_weights: Type.Record(Type.String(), Type.Number()),
    }),
    dimensions: Type.Object(
      Object.fromEntries(
        DIMENSIONS.map((d) => [
          d,
          Type.Object({
            weight: Type.Number(),
            experimental: Type.Boolean(),
            why_experimental: Type.Optional(Type.String()),
            formula: Type.String(),
            evidence: Type.String(),
          }),
        ]),
      ),
    ),
    validation: Type.Object(
      {
        dimensions: Type.Array(Type.String()),
        required_phrases: Type.Integer(),
        measured_phrases: Type.Integer(),
        experimental_weight_factor: Type.Number(),
        method: Type.String(),
        reproduce: Type.String(),
      },
      { description: 'How pain and intent are validated, and how far: until required_phrases have been measured they are experimental' },
    ),
    momentum: Type.Object({
      rising_at: Type.Number(),
      falling_at: Type.Number(),
      backtest: Type.Object({
        data: Type.String(),
        method: Type.String(),
        windows: Type.Object({ tuning: Type.Integer(), held_out: Type.Integer() }),
        held_out: Figures,
        tuning: Figures,
        held_out_30_day_model: Figures,
        previous_formula_held_out: Figures,
        reproduce: Type.String(),
      }),
    }),
    evidence_agreement: Type.Object(
      {
        measured_on: Type.String({ format: 'date' }),
        data: Type.String(),
        method: Type.String(),
        recordings: Type.Integer(),
        keywords: Type.Array(Type.String()),
        days: Type.Array(Type.String({ format: 'date' })),
        windows: Type.Array(Type.String()),
        families: Type.Object(Object.fromEntries(AGREEMENT_FAMILIES.map((f) => [f, FamilyAgreementSchema]))),
        conclusion: Type.String(),
        live_recording_needs: Type.String(),
        reproduce: Type.String(),
      },
      {
        description:
          'How the pain and intent evidence read today (the modifier comparison) agrees with the related-list evidence, on the recorded answers that hold related lists',
      },
    ),
    trend_classes: Type.Array(
      Type.Object({
        class: stringEnum(TREND_CLASSES),
        rule: Type.String(),
        claim: Type.String(),
        hit_rate: HitRate,
        hit_rate_tuning: Type.Union([Type.Number(), Type.Null()]),
        base_rate: Type.Union([Type.Number(), Type.Null()]),
        share: Type.Number(),
        windows: Type.Integer(),
        note: Type.Optional(Type.String()),
      }),
    ),
  },
  { $id: 'Methodology' },
);

export const CatalogSchema = Type.Object({
  data: Type.Array(Type.Object({ id: Type.String(), description: Type.String(), insights: Type.Integer() })),
  next_cursor: Type.Null(),
});

export const CategoryCatalogSchema = Type.Object({
  data: Type.Array(
    Type.Object({
      id: Type.String({ description: "The slug the category filter takes: Google's category name, lower case" }),
      description: Type.String({ description: "Google's name of the category" }),
      google_id: Type.Union([Type.Integer(), Type.Null()], {
        description: "Google's id of the category (the cat parameter of a Google Trends request); null for uncategorized",
      }),
      insights: Type.Integer(),
    }),
  ),
  next_cursor: Type.Null(),
});
