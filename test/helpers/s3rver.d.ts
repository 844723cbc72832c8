declare module "s3rver" {
  const S3rver: new (options: Record<string, unknown>) => unknown;
  export default S3rver;
}
