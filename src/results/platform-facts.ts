import type { PlatformName } from "../plan/platforms.js";

/** Facts recorded in the run manifest. */
export interface PlatformFacts {
  platform: PlatformName;
  /** Lab profile name or AWS region. */
  target: string;
  /** True when the numbers come from an emulation (the lab), labelled so in every report. */
  emulated: boolean;
  /** True when the lab could not shape (no root/netns/tc): results are labelled "unshaped". */
  unshaped: boolean;
  /** Per-environment bandwidth quota in force, bits per second, when known. */
  quotaBitsPerSecond: number | null;
  details: Record<string, unknown>;
}
