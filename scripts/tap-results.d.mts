export interface TapCounts {
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
}
export interface TapFailure {
  name: string;
  location: string;
  error: string;
}
export function tapCounts(text: string): TapCounts;
export function tapFailures(text: string): TapFailure[];
