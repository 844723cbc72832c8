/**
 * How many repetitions a spread needs before a report prints one: below it, min-max or a
 * percentage would describe one or two numbers, not the variation of the cell. The cell keeps its
 * n and is listed in a warning instead.
 */
export const spreadMinimumRepetitions = 3;
