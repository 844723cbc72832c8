import { LambdaClient } from "@aws-sdk/client-lambda";
import { S3Client } from "@aws-sdk/client-s3";
import { ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import { invokeAgent } from "../platforms/aws/lambda-invoker.js";
import { handleRecorderEvent, type RecorderEvent } from "./recorder.js";

/**
 * The recorder's Lambda entry point (`recorder.handler` in its zip; nodejs22.x, whose runtime
 * provides the AWS SDK, so the bundle leaves it out). Clients are made once per environment.
 */
const region = process.env.AWS_REGION ?? "us-east-1";
const s3 = new S3Client({ region });
const lambda = new LambdaClient({ region, maxAttempts: 1 });
const quotas = new ServiceQuotasClient({ region, maxAttempts: 3 });

export const handler = async (event: RecorderEvent) =>
  handleRecorderEvent(
    { s3, region, quotas, invokeLatest: (agentEvent) => invokeAgent(lambda, "$LATEST", agentEvent) },
    event,
  );
