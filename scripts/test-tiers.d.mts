export const TIER_NAMES: readonly ["unit", "integration", "lab", "e2e", "vm"];
export type Tier = (typeof TIER_NAMES)[number];
export type Manifest = Partial<Record<Tier | "alone", string[]>>;
export const MANIFEST: string;
export function findTestFiles(dir?: string): string[];
export function loadManifest(path?: string): Manifest;
export function tierOf(file: string, manifest: Manifest): Tier;
export function runsAlone(file: string, manifest: Manifest): boolean;
export function manifestProblems(manifest: Manifest, files: string[]): string[];
