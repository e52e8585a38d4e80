// Reads the environment for the section loaders (src/config.ts hands it the environment it read).
import { CronExpressionParser } from 'cron-parser';
import { PLAN_VALUES, type Plan } from '../domain/quota.js';
import type { SettingsReader } from '../domain/trends/provider-profile.js';
import path from 'node:path';
import { PROJECT_ROOT } from './project-root.js';

export type Env = Record<string, string | undefined>;

/** A value for a message: quoted, unless it may hold credentials (user:password@), which are never repeated. */
export function shownValue(value: string): string {
  return value.includes('@') ? '(not shown: it may hold a password)' : `"${value}"`;
}

/**
 * Reads the environment for the section loaders: each problem is collected,
 * not thrown, so one error can list them all.
 */
export class EnvReader implements SettingsReader {
  readonly problems: string[] = [];
  constructor(readonly env: Env) {}

  text(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  list(name: string, fallback = ''): string[] {
    return (this.text(name) ?? fallback)
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }

  url(name: string, protocols: readonly string[]): string | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) this.problems.push(`${name} must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
    } catch {
      this.problems.push(`${name} is not a valid URL`);
    }
    return value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.text(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return parsed;
  }

  /**
   * One whole number per plan, each from its own variable `${prefix}_FREE`, `${prefix}_STARTER`, …:
   * a plan's figure is declared once, in `fallbacks`, and a new plan is read everywhere by adding it to PLANS.
   */
  perPlan(prefix: string, fallbacks: Readonly<Record<Plan, number>>, min: number, max: number): Readonly<Record<Plan, number>> {
    return Object.freeze(
      Object.fromEntries(
        PLAN_VALUES.map((plan) => [plan, this.integer(`${prefix}_${plan.toUpperCase()}`, fallbacks[plan], min, max)]),
      ) as Record<Plan, number>,
    );
  }

  cron(name: string, fallback: string): string {
    const value = this.text(name) ?? fallback;
    try {
      if (!/^(\S+\s+){4}\S+$/.test(value)) throw new Error('not 5 fields');
      // The parser BullMQ's schedulers use: what passes here, they accept.
      CronExpressionParser.parse(value, { tz: 'UTC' });
    } catch (error) {
      this.problems.push(
        `${name} must be a 5-field cron expression in UTC such as "0 3 * * *" (got "${value}": ${error instanceof Error ? error.message : String(error)})`,
      );
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.text(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  path(name: string, fallback: string): string {
    return path.resolve(PROJECT_ROOT, this.text(name) ?? fallback);
  }

  /** Problems that concern more than one variable. */
  check(ok: boolean, problem: string): void {
    if (!ok) this.problems.push(problem);
  }
}
