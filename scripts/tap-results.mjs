// What node's TAP reporter says of a test batch: its counts and its failed tests.

/** Counts from node's TAP summary lines ("# pass 12"). */
export function tapCounts(text) {
  const count = (name) => Number(text.match(new RegExp(`^# ${name} (\\d+)$`, "m"))?.[1] ?? 0);
  return {
    tests: count("tests"),
    passed: count("pass"),
    failed: count("fail") + count("cancelled"),
    skipped: count("skipped") + count("todo"),
  };
}

/**
 * The failed tests in node's TAP output, with where and why, so the run's last lines (all a CI log
 * tail may keep) name them. A parent that failed only because a subtest did is left out.
 */
export function tapFailures(text) {
  const lines = text.split("\n");
  const failures = [];
  for (const [index, line] of lines.entries()) {
    const name = line.match(/^\s*not ok \d+ - (.*)$/)?.[1];
    if (name === undefined) continue;
    const details = {};
    for (let i = index + 1; i < lines.length && lines[i].trim() !== "..."; i++) {
      const field = lines[i].match(/^\s*(location|error|failureType): (.*)$/);
      if (!field || field[1] in details) continue;
      // a block scalar (|-) carries its text on the next line
      details[field[1]] = (field[2] === "|-" ? (lines[i + 1] ?? "") : field[2]).trim().replace(/^'|'$/g, "");
    }
    if (details.failureType === "subtestsFailed") continue;
    failures.push({ name, location: details.location ?? "", error: details.error ?? "" });
  }
  return failures;
}
