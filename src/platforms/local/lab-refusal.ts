/**
 * The lab refuses what it was asked before it starts anything: bad input (names the field and
 * the allowed values) or a host that cannot do it (names the missing piece and what to do).
 * The CLI prints the message and exits 2, like any other input error.
 */
export class LabRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LabRefusal";
  }
}
