import { DescribeRegionsCommand, type EC2Client } from "@aws-sdk/client-ec2";

/**
 * Of the given regions, those this account can use: EC2 DescribeRegions without AllRegions
 * lists only the regions enabled for the account (opt-in regions appear once enabled), so
 * `--all-regions` skips opt-in regions nobody turned on instead of failing in each.
 */
export async function splitEnabledRegions(
  ec2: EC2Client,
  regions: readonly string[],
): Promise<{ enabled: string[]; notEnabled: string[] }> {
  const response = await ec2.send(new DescribeRegionsCommand({}));
  const enabled = new Set(
    (response.Regions ?? []).flatMap((region) => (region.RegionName ? [region.RegionName] : [])),
  );
  return {
    enabled: regions.filter((region) => enabled.has(region)),
    notEnabled: regions.filter((region) => !enabled.has(region)),
  };
}
