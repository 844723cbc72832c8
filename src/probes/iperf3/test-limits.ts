/**
 * The ranges of an iperf3 test as upstream's server enforces them (protocol doc 3.3). Our
 * server refuses outside them; our client's options (the event schema and the client's own
 * check, which other probes call directly) are held to the same numbers.
 */
export const MAX_PARALLEL_STREAMS = 128;
export const MAX_BLOCK_BYTES = 1_048_576;
export const MAX_TIME_SECONDS = 86_400;
export const MAX_OMIT_SECONDS = 600;
