// A node --test reporter that writes, per test file, the seconds its top-level tests took (one JSON
// line a file, at the end): the shared lane runs many files in one process tree, and its slowest
// files are where a faster suite starts. Hooks (a lab started in `before`) are not counted.
export default async function* fileTimes(source) {
  const msByFile = new Map();
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    if (event.data.nesting !== 0 || !event.data.file) continue;
    const file = event.data.file;
    msByFile.set(file, (msByFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  for (const [file, ms] of msByFile) yield `${JSON.stringify({ file, seconds: ms / 1000 })}\n`;
}
