/**
 * One EC2 product as AWS's Price List Query API (GetProducts, format aws_v1) returns it: a JSON
 * string per product, its attributes, and its terms — the On-Demand one (AWS's offer term code
 * JRTCKXETXF, rate code 6YS6EN2CT7: one hourly price) beside a Reserved one, whose several price
 * dimensions (an upfront fee and an hourly rate) the parser must leave alone. The figure is the
 * caller's: tests and the rehearsal give their own, never AWS's.
 */

/** AWS's usage-type prefix of each region the tests use. */
const usageTypePrefix: Record<string, string> = {
  "us-east-1": "",
  "us-west-2": "USW2-",
  "eu-west-1": "EU-",
};

const regionName: Record<string, string> = {
  "us-east-1": "US East (N. Virginia)",
  "us-west-2": "US West (Oregon)",
  "eu-west-1": "EU (Ireland)",
};

export function ec2ProductDocument(options: {
  region: string;
  instanceType: string;
  usdPerHour: string;
  sku?: string;
}): string {
  const sku = options.sku ?? "Q7N2ZDE3KD8WJ5VA";
  const onDemand = `${sku}.JRTCKXETXF`;
  const reserved = `${sku}.4NA7Y494T4`;
  return JSON.stringify({
    product: {
      productFamily: "Compute Instance",
      attributes: {
        capacitystatus: "Used",
        currentGeneration: "Yes",
        instanceFamily: "Compute optimized",
        instanceType: options.instanceType,
        licenseModel: "No License required",
        location: regionName[options.region] ?? options.region,
        locationType: "AWS Region",
        marketoption: "OnDemand",
        operatingSystem: "Linux",
        operation: "RunInstances",
        physicalProcessor: "AWS Graviton4 Processor",
        preInstalledSw: "NA",
        processorArchitecture: "64-bit",
        regionCode: options.region,
        servicecode: "AmazonEC2",
        servicename: "Amazon Elastic Compute Cloud",
        storage: "EBS only",
        tenancy: "Shared",
        usagetype: `${usageTypePrefix[options.region] ?? ""}BoxUsage:${options.instanceType}`,
        vcpu: "2",
      },
      sku,
    },
    serviceCode: "AmazonEC2",
    terms: {
      OnDemand: {
        [onDemand]: {
          priceDimensions: {
            [`${onDemand}.6YS6EN2CT7`]: {
              unit: "Hrs",
              endRange: "Inf",
              description: `On Demand Linux ${options.instanceType} Instance Hour`,
              appliesTo: [],
              rateCode: `${onDemand}.6YS6EN2CT7`,
              beginRange: "0",
              pricePerUnit: { USD: options.usdPerHour },
            },
          },
          sku,
          effectiveDate: "2026-11-01T00:00:00Z",
          offerTermCode: "JRTCKXETXF",
          termAttributes: {},
        },
      },
      Reserved: {
        [reserved]: {
          priceDimensions: {
            [`${reserved}.2TG2D8R56U`]: {
              unit: "Quantity",
              description: "Upfront Fee",
              appliesTo: [],
              rateCode: `${reserved}.2TG2D8R56U`,
              pricePerUnit: { USD: "100" },
            },
            [`${reserved}.6YS6EN2CT7`]: {
              unit: "Hrs",
              endRange: "Inf",
              description: `Linux/UNIX (Amazon VPC), ${options.instanceType} reserved instance applied`,
              appliesTo: [],
              rateCode: `${reserved}.6YS6EN2CT7`,
              beginRange: "0",
              pricePerUnit: { USD: "0.01" },
            },
          },
          sku,
          effectiveDate: "2026-11-01T00:00:00Z",
          offerTermCode: "4NA7Y494T4",
          termAttributes: {
            LeaseContractLength: "1yr",
            OfferingClass: "standard",
            PurchaseOption: "Partial Upfront",
          },
        },
      },
    },
    version: "20261101000000",
    publicationDate: "2026-11-01T00:00:00Z",
  });
}

/** GetProducts' answer body (JSON 1.1) for these product documents. */
export function getProductsAnswer(priceList: string[]): { FormatVersion: "aws_v1"; PriceList: string[] } {
  return { FormatVersion: "aws_v1", PriceList: priceList };
}
