// asl-validator 4.0 ships JavaScript only: the part of its API the tests use.
declare module "asl-validator" {
  interface AslValidationResult {
    isValid: boolean;
    errors: Array<{ "Error code"?: string; Message?: string }>;
    errorsText(separator?: string): string;
  }
  export default function aslValidator(
    definition: unknown,
    options?: Record<string, unknown>,
  ): AslValidationResult;
}
