// Module hooks (node --import ./test/helpers/module-trace.mjs): appends every module URL the
// process loads to the file named by LNB_MODULE_TRACE, one per line, so a test can say what a
// command loads without timing it.
import { appendFileSync } from "node:fs";

export async function load(url, context, nextLoad) {
  const file = process.env.LNB_MODULE_TRACE;
  if (file) appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
