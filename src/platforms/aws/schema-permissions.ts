import { type ResourceSchema, resourceSchemas } from "./resource-schemas.js";

/**
 * Which handler permissions of the published resource schemas (resource-schemas.ts) the
 * operator policy leaves out, and why. Everything a schema lists for create, read, update,
 * delete and tagging is granted except what is named here; a test holds the printed policy to
 * that, so a schema that gains a permission fails it until the policy grants the permission or
 * this table says why not.
 *
 * A schema's list covers every property of its type; most of it is needed only when a template
 * sets the property it serves. The list handler is never part of a stack operation (the Cloud
 * Control API and resource discovery call it), so its permissions are not granted.
 */
export type Omission =
  /** Needed only when a template sets one of these properties; the test checks none of ours does. */
  | { unusedProperties: string[] }
  /** Not an IAM action but the API's own name; IAM authorizes the call as `authorizedAs` (granted). */
  | { authorizedAs: string }
  /** Not an IAM action of any API. */
  | { notAnAction: true };

export const handlersInStackOperations = ["create", "read", "update", "delete"] as const;

const unused = (...unusedProperties: string[]): Omission => ({ unusedProperties });
const authorizedAs = (action: string): Omission => ({ authorizedAs: action });

export const omittedSchemaPermissions: Record<string, Record<string, Omission>> = {
  "AWS::CloudFormation::Stack": {
    "cloudformation:UpdateTerminationProtection": unused("EnableTerminationProtection"),
    "cloudformation:SetStackPolicy": unused("StackPolicyBody", "StackPolicyURL"),
    // the nested stack acts with the caller's rights, or the parent's service role
    "iam:PassRole": unused("RoleARN"),
  },
  "AWS::EC2::Instance": {
    "ec2:ModifyPrivateDnsNameOptions": unused("PrivateDnsNameOptions"),
    "ec2:AttachVolume": unused("Volumes"),
    "ec2:DetachVolume": unused("Volumes"),
    "ec2:ModifyInstanceCreditSpecification": unused("CreditSpecification"),
    "ec2:ModifyInstancePlacement": unused(
      "Affinity",
      "HostId",
      "Tenancy",
      "PlacementGroupName",
      "HostResourceGroupArn",
    ),
    "ec2:MonitorInstances": unused("Monitoring"),
    "ec2:UnmonitorInstances": unused("Monitoring"),
    "ssm:CreateAssociation": unused("SsmAssociations"),
    "ssm:DeleteAssociation": unused("SsmAssociations"),
  },
  "AWS::IAM::Role": {
    "iam:AttachRolePolicy": unused("ManagedPolicyArns"),
    "iam:DetachRolePolicy": unused("ManagedPolicyArns"),
  },
  "AWS::Lambda::Function": {
    "kms:CreateGrant": unused("KmsKeyArn"),
    "kms:Decrypt": unused("KmsKeyArn"),
    "kms:Encrypt": unused("KmsKeyArn"),
    "kms:GenerateDataKey": unused("KmsKeyArn"),
    "elasticfilesystem:DescribeMountTargets": unused("FileSystemConfigs"),
    "s3files:ListMountTargets": unused("FileSystemConfigs"),
    "lambda:PutFunctionConcurrency": unused("ReservedConcurrentExecutions"),
    "lambda:DeleteFunctionConcurrency": unused("ReservedConcurrentExecutions"),
    "lambda:GetCodeSigningConfig": unused("CodeSigningConfigArn"),
    "lambda:PutFunctionCodeSigningConfig": unused("CodeSigningConfigArn"),
    "lambda:DeleteFunctionCodeSigningConfig": unused("CodeSigningConfigArn"),
    "lambda:GetLayerVersion": unused("Layers"),
    "lambda:PutRuntimeManagementConfig": unused("RuntimeManagementConfig"),
    "lambda:PutFunctionRecursionConfig": unused("RecursiveLoop"),
    "lambda:PutFunctionScalingConfig": unused("FunctionScalingConfig"),
    "lambda:PassCapacityProvider": unused("CapacityProviderConfig"),
  },
  "AWS::Logs::LogGroup": {
    "logs:PutDataProtectionPolicy": unused("DataProtectionPolicy"),
    "logs:DeleteDataProtectionPolicy": unused("DataProtectionPolicy"),
    // where a data protection policy sends its audit findings
    "logs:CreateLogDelivery": unused("DataProtectionPolicy"),
    "logs:PutResourcePolicy": unused("DataProtectionPolicy"),
    "logs:DescribeResourcePolicies": unused("DataProtectionPolicy"),
    "firehose:TagDeliveryStream": unused("DataProtectionPolicy"),
    "s3:REST.PUT.OBJECT": { notAnAction: true },
    "logs:AssociateKmsKey": unused("KmsKeyId"),
    "logs:DisassociateKmsKey": unused("KmsKeyId"),
  },
  "AWS::S3::Bucket": {
    "s3:PutAnalyticsConfiguration": unused("AnalyticsConfigurations"),
    "s3:DeleteBucketAnalyticsConfiguration": unused("AnalyticsConfigurations"),
    "s3:PutBucketCORS": unused("CorsConfiguration"),
    "s3:DeleteBucketCors": unused("CorsConfiguration"),
    "s3:PutInventoryConfiguration": unused("InventoryConfigurations"),
    "s3:PutMetricsConfiguration": unused("MetricsConfigurations"),
    "s3:DeleteBucketMetricsConfiguration": unused("MetricsConfigurations"),
    "s3:PutBucketNotification": unused("NotificationConfiguration"),
    "s3:PutReplicationConfiguration": unused("ReplicationConfiguration"),
    "s3:PutBucketReplication": unused("ReplicationConfiguration"),
    "s3:DeleteBucketReplication": unused("ReplicationConfiguration"),
    // the replication role is the bucket's only role
    "iam:PassRole": unused("ReplicationConfiguration"),
    "s3:PutBucketWebsite": unused("WebsiteConfiguration"),
    "s3:DeleteBucketWebsite": unused("WebsiteConfiguration"),
    "s3:PutAccelerateConfiguration": unused("AccelerateConfiguration"),
    "s3:PutBucketAcl": unused("AccessControl"),
    "s3:PutObjectAcl": unused("AccessControl"),
    "s3:PutBucketObjectLockConfiguration": unused("ObjectLockConfiguration", "ObjectLockEnabled"),
    "s3:PutObjectLockConfiguration": unused("ObjectLockConfiguration", "ObjectLockEnabled"),
    "s3:PutBucketLogging": unused("LoggingConfiguration"),
    "s3:PutBucketVersioning": unused("VersioningConfiguration"),
    "s3:PutIntelligentTieringConfiguration": unused("IntelligentTieringConfigurations"),
    "s3:CreateBucketMetadataTableConfiguration": unused("MetadataTableConfiguration"),
    "s3:DeleteBucketMetadataTableConfiguration": unused("MetadataTableConfiguration"),
    "s3tables:CreateNamespace": unused("MetadataTableConfiguration"),
    "s3tables:CreateTable": unused("MetadataTableConfiguration"),
    "s3tables:GetTable": unused("MetadataTableConfiguration"),
    "s3tables:PutTablePolicy": unused("MetadataTableConfiguration"),
    "s3tables:GetTableMetadataLocation": unused("MetadataTableConfiguration"),
    "s3tables:UpdateTableMetadataLocation": unused("MetadataTableConfiguration"),
    "s3:DeleteBucketEncryption": authorizedAs("s3:PutEncryptionConfiguration"),
    "s3:DeleteBucketLifecycle": authorizedAs("s3:PutLifecycleConfiguration"),
    "s3:DeleteBucketTagging": authorizedAs("s3:PutBucketTagging"),
  },
  "AWS::StepFunctions::StateMachine": {
    "s3:GetObject": unused("DefinitionS3Location"),
  },
};

/** The permissions of one schema that a stack operation can need: every handler but list, and tagging. */
export function stackOperationPermissions(schema: ResourceSchema): Set<string> {
  return new Set([...handlersInStackOperations.flatMap((name) => schema.handlers[name]), ...schema.tagging]);
}

/**
 * Every permission of a type's read handler, the service prefix lower-case as IAM prints it (one
 * schema writes "S3:GetBucketWebsite"). CloudFormation runs the read handler after every create
 * and update, and it reads every configuration of the type whether a template sets it or not,
 * so none of it can be left out.
 */
export function readHandlerActions(type: string): string[] {
  return resourceSchema(type).handlers.read.map((action) =>
    action.replace(/^[^:]+/, (service) => service.toLowerCase()),
  );
}

/** The schema of a resource type, or an error that says where to add it. */
export function resourceSchema(type: string): ResourceSchema {
  const schema = resourceSchemas[type];
  if (!schema)
    throw new Error(
      `no published schema kept for ${type}: add it to resource-schemas.ts (its handlers and properties)`,
    );
  return schema;
}
