// A statement over a batch of rows given at each run (the meter's holds of one event-loop turn, say),
// so that n rows cost one statement instead of n. The query reads the rows as a table,
// `(select column1 as "id", cast(column2 as bigint) as "amount" from (values (?, ?), (?, ?)) as t)`,
// which SQLite and PostgreSQL both read (a VALUES list names its columns column1, column2, ...; a
// parameter in it is text to PostgreSQL, so whole numbers are cast). Like QueryTemplate, the query is
// built and compiled by Kysely once per batch size: the sizes are the powers of two up to
// MAX_BATCH_ROWS and a batch is padded with rows of nulls, so a handful of prepared statements serve
// every batch. The query must let a row of nulls match nothing (a join or comparison on null does not).
import { sql, type Compilable, type RawBuilder } from 'kysely';
import type { BoundQuery } from './query-template.js';

/** A column's SQL type: text, or a whole number (money, tokens, times). */
export type BatchColumn = 'text' | 'bigint';

/** A row of a batch whose columns are `C`. */
export type BatchRow<C extends Record<string, BatchColumn>> = {
  [K in keyof C]: C[K] extends 'bigint' ? number : string;
};

/** The most rows one statement takes; a bigger batch runs in several. */
export const MAX_BATCH_ROWS = 64;

const CELL = '\u0000cell:';

interface Compiled {
  sql: string;
  /** Per parameter: the index of its cell in the batch (row after row), or -1 for a constant. */
  cells: Int32Array;
  /** Per parameter: the value the builder wrote, where `cells` is -1. */
  constants: unknown[];
}

export class BatchTemplate<C extends Record<string, BatchColumn>> {
  /** Values per row, in the order of the columns given. */
  readonly width: number;
  readonly #types: readonly BatchColumn[];
  readonly #names: readonly string[];
  readonly #build: (rows: RawBuilder<BatchRow<C>>) => Compilable;
  /** By the exponent of the size: compiled on first use. */
  readonly #bySize: Array<Compiled | undefined> = [];

  /** `build(rows)` returns the query; `rows` is the batch as a table, to alias (`rows.as('h')`). */
  constructor(columns: C, build: (rows: RawBuilder<BatchRow<C>>) => Compilable) {
    this.#names = Object.keys(columns);
    this.#types = Object.values(columns);
    this.width = this.#names.length;
    this.#build = build;
  }

  /**
   * The statement for `count` rows (1 to MAX_BATCH_ROWS) of `cells` from row `from` on: `cells` holds
   * rows one after the other, `width` values each, in the order of the columns.
   */
  bind(cells: readonly unknown[], from: number, count: number): BoundQuery {
    if (count < 1 || count > MAX_BATCH_ROWS)
      throw new RangeError(`a batch has 1 to ${MAX_BATCH_ROWS} rows, not ${count}`);
    const exponent = Math.ceil(Math.log2(count));
    const compiled = (this.#bySize[exponent] ??= this.#compile(2 ** exponent));
    const first = from * this.width;
    const end = first + count * this.width;
    const parameters = new Array<unknown>(compiled.cells.length);
    for (let i = 0; i < parameters.length; i++) {
      const cell = compiled.cells[i]!;
      parameters[i] = cell < 0 ? compiled.constants[i] : first + cell < end ? cells[first + cell] : null;
    }
    return { sql: compiled.sql, parameters };
  }

  #compile(size: number): Compiled {
    const columns = this.#names.map((name, index) => {
      const value = sql.ref(`column${index + 1}`);
      return sql`${this.#types[index] === 'bigint' ? sql`cast(${value} as bigint)` : value} as ${sql.ref(name)}`;
    });
    const rows = Array.from(
      { length: size },
      (_, row) => sql`(${sql.join(this.#names.map((_, column) => sql.val(`${CELL}${row * this.width + column}`)))})`,
    );
    const table = sql<BatchRow<C>>`(select ${sql.join(columns)} from (values ${sql.join(rows)}) as t)`;
    const query = this.#build(table).compile();
    const cells = new Int32Array(query.parameters.length);
    const constants = query.parameters.map((parameter, index) => {
      const cell =
        typeof parameter === 'string' && parameter.startsWith(CELL) ? Number(parameter.slice(CELL.length)) : -1;
      cells[index] = cell;
      return cell < 0 ? parameter : undefined;
    });
    return { sql: query.sql, cells, constants };
  }
}
