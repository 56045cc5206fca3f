// What the worker processes of one node share (server.workers > 1): objects that live in the node's primary
// process and that every worker calls by name, so that counts which must be the node's (rate-limit windows,
// the prompt-cache registry) are exact whichever worker serves a request. Undefined in a node of one process.

export interface SharedObjects {
  /**
   * Calls `method` of the primary's object `object` (made there on first use from the object's name) with
   * `args` and resolves with its result. Arguments and results cross a process boundary: plain data, Maps,
   * Sets and Dates only (the structured clone).
   */
  call<Result>(object: string, method: string, args: readonly unknown[]): Promise<Result>;
}
