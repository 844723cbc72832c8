import { AwsInputError } from "../platforms/aws/aws-input.js";

/**
 * EventBridge Scheduler's recurring expressions, checked before any AWS call so a typo never
 * reaches CreateStack (where it would fail only after minutes, in a rollback):
 * - `rate(value unit)`: a whole value >= 1, unit minute/hour/day, singular for 1 and plural otherwise;
 * - `cron(minutes hours day-of-month month day-of-week year)`: six fields, in UTC unless a time
 *   zone is given to the schedule, with `?` in exactly one of day-of-month and day-of-week.
 * One-time `at(...)` schedules are refused: a study that repeats is what a schedule is for.
 */
export type ScheduleExpression =
  | { kind: "rate"; seconds: number; text: string }
  | { kind: "cron"; text: string };

const allowed = '"rate(1 day)", "rate(12 hours)", "rate(30 minutes)" or "cron(0 6 * * ? *)"';

export function parseScheduleExpression(input: string, field = "every"): ScheduleExpression {
  const text = input.trim();
  const rate = /^rate\((.*)\)$/.exec(text);
  if (rate) return parseRate(rate[1] as string, text, field);
  const cron = /^cron\((.*)\)$/.exec(text);
  if (cron) return parseCron(cron[1] as string, text, field);
  throw new AwsInputError(field, `"${input}" is not a schedule expression (allowed: ${allowed})`);
}

const unitSeconds: Record<string, number> = { minute: 60, hour: 3_600, day: 86_400 };

function parseRate(body: string, text: string, field: string): ScheduleExpression {
  const match = /^(\d+) (minute|hour|day)(s?)$/.exec(body.trim());
  if (!match)
    throw new AwsInputError(
      field,
      `"${text}": rate needs a whole number and a unit minute(s), hour(s) or day(s) (allowed: ${allowed})`,
    );
  const value = Number(match[1]);
  const unit = match[2] as string;
  const plural = match[3] === "s";
  if (value < 1) throw new AwsInputError(field, `"${text}": the rate value must be at least 1`);
  if (value === 1 && plural)
    throw new AwsInputError(field, `"${text}": use the singular for 1 (rate(1 ${unit}))`);
  if (value > 1 && !plural)
    throw new AwsInputError(field, `"${text}": use the plural above 1 (rate(${value} ${unit}s))`);
  return { kind: "rate", seconds: value * (unitSeconds[unit] as number), text };
}

const monthNames = "JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC";
const dayNames = "SUN|MON|TUE|WED|THU|FRI|SAT";

interface CronField {
  name: string;
  min: number;
  max: number;
  names?: string;
  /** Extra single tokens this field accepts (L, LW, 3#2, 15W...). */
  special?: RegExp;
  question?: boolean;
}

const cronFields: CronField[] = [
  { name: "minutes", min: 0, max: 59 },
  { name: "hours", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31, special: /^(L|LW|\d{1,2}W)$/, question: true },
  { name: "month", min: 1, max: 12, names: monthNames },
  { name: "day-of-week", min: 1, max: 7, names: dayNames, special: /^([1-7]L|[1-7]#[1-5])$/, question: true },
  { name: "year", min: 1970, max: 2199 },
];

function parseCron(body: string, text: string, field: string): ScheduleExpression {
  const parts = body.trim().split(/\s+/);
  if (parts.length !== 6)
    throw new AwsInputError(
      field,
      `"${text}": cron needs 6 fields (minutes hours day-of-month month day-of-week year), got ${parts.length}`,
    );
  parts.forEach((part, index) => {
    const spec = cronFields[index] as CronField;
    const problem = cronFieldProblem(part, spec);
    if (problem) throw new AwsInputError(field, `"${text}": ${spec.name} "${part}": ${problem}`);
  });
  const dayOfMonth = parts[2] as string;
  const dayOfWeek = parts[4] as string;
  if ((dayOfMonth === "?") === (dayOfWeek === "?"))
    throw new AwsInputError(
      field,
      `"${text}": exactly one of day-of-month and day-of-week must be "?" (e.g. cron(0 6 * * ? *))`,
    );
  return { kind: "cron", text };
}

function cronFieldProblem(part: string, spec: CronField): string | null {
  if (part === "?") return spec.question ? null : `"?" is allowed only in day-of-month and day-of-week`;
  if (part === "*") return null;
  if (spec.special?.test(part)) return null;
  for (const item of part.split(",")) {
    const [range, step, ...rest] = item.split("/");
    if (rest.length > 0 || range === undefined) return "at most one '/' per item";
    if (step !== undefined && !(/^\d+$/.test(step) && Number(step) >= 1))
      return `step "${step}" is not a whole number >= 1`;
    if (range === "*" && step !== undefined) continue;
    const bounds = range.split("-");
    if (bounds.length > 2) return `"${range}" is not a value or a range`;
    for (const bound of bounds) {
      const value = cronValue(bound, spec);
      if (value === null)
        return `"${bound}" is not allowed (allowed: ${spec.min}-${spec.max}${spec.names ? ` or ${spec.names.replaceAll("|", ",")}` : ""}, *, lists, ranges, steps)`;
    }
  }
  return null;
}

function cronValue(token: string, spec: CronField): number | null {
  if (/^\d+$/.test(token)) {
    const value = Number(token);
    return value >= spec.min && value <= spec.max ? value : null;
  }
  if (spec.names) {
    const index = spec.names.split("|").indexOf(token.toUpperCase());
    if (index >= 0) return index + spec.min;
  }
  return null;
}
