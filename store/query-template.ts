// A query built and compiled by Kysely once, at start, then run many times with new values: the hot
// path pays for neither the builder nor the compiler (tens of µs a query), and the SQL is
// still the dialect's own. The builder is given a marker for each named argument; the compiled
// query's parameters are then either a marker (filled per run) or a constant the builder wrote.
import type { Compilable } from 'kysely';

const MARK = '\u0000arg:';

type Slot<A> = { arg: keyof A } | { constant: unknown };

/** SQL text and its parameters, ready for a Transactor's runner. */
export interface BoundQuery {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

export class QueryTemplate<A extends Record<string, unknown>> {
  readonly sql: string;
  readonly #slots: ReadonlyArray<Slot<A>>;

  /** `build(arg)` returns the query; `arg('name')` stands for the value given under that name at each run. */
  constructor(build: (arg: <K extends keyof A & string>(name: K) => A[K]) => Compilable) {
    const compiled = build((name) => `${MARK}${name}` as never).compile();
    this.sql = compiled.sql;
    this.#slots = compiled.parameters.map((parameter) =>
      typeof parameter === 'string' && parameter.startsWith(MARK)
        ? { arg: parameter.slice(MARK.length) as keyof A }
        : { constant: parameter },
    );
  }

  /** The query with these values. */
  with(args: A): BoundQuery {
    return { sql: this.sql, parameters: this.#slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.constant)) };
  }
}
