/**
 * The commercial AWS regions (partition `aws`) the tool accepts. One data file, so a new
 * region is one line. Source: AWS "Regions and Availability Zones" list, checked 2026-11.
 * GovCloud and China are different partitions with other endpoints and are not supported.
 */
export const commercialRegions = [
  "us-east-1",
  "us-east-2",
  "us-west-1",
  "us-west-2",
  "af-south-1",
  "ap-east-1",
  "ap-east-2",
  "ap-south-1",
  "ap-south-2",
  "ap-southeast-1",
  "ap-southeast-2",
  "ap-southeast-3",
  "ap-southeast-4",
  "ap-southeast-5",
  "ap-southeast-6",
  "ap-southeast-7",
  "ap-northeast-1",
  "ap-northeast-2",
  "ap-northeast-3",
  "ca-central-1",
  "ca-west-1",
  "eu-central-1",
  "eu-central-2",
  "eu-west-1",
  "eu-west-2",
  "eu-west-3",
  "eu-south-1",
  "eu-south-2",
  "eu-north-1",
  "il-central-1",
  "me-south-1",
  "me-central-1",
  "mx-central-1",
  "sa-east-1",
] as const;

export type CommercialRegion = (typeof commercialRegions)[number];

/**
 * The regions enabled in every account (those launched before 20 March 2019); every other
 * commercial region is opt-in and works only once the account enables it. Source: AWS Account
 * Management guide, "Specify which AWS Regions your account can use", checked 2026-12.
 */
export const regionsEnabledByDefault: ReadonlySet<string> = new Set([
  "us-east-1",
  "us-east-2",
  "us-west-1",
  "us-west-2",
  "ap-south-1",
  "ap-northeast-1",
  "ap-northeast-2",
  "ap-northeast-3",
  "ap-southeast-1",
  "ap-southeast-2",
  "ca-central-1",
  "eu-central-1",
  "eu-west-1",
  "eu-west-2",
  "eu-west-3",
  "eu-north-1",
  "sa-east-1",
]);
