import { handleEvent } from "./handler.js";

/** The AWS Lambda entry point (nodejs22.x): `index.handler` in the bundled zip. */
export const handler = async (event: unknown) => handleEvent(event);
