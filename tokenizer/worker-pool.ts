// A small pool of worker threads that count large prompts off the event loop. Each worker loads
// the model once (count-worker.ts), its own copy (about 100 MB for Qwen3), and counts one
// conversation at a time; jobs wait in a queue here (a job aborted while queued never reaches a
// worker). The pool starts with one worker and adds one, up to its size, only when a job has to wait
// for a busy one: light counting holds one copy of the model, not `size`. A worker left idle for
// `idleMs` ends, its memory given back (the pool can be empty; the next job starts one again). A
// worker that dies fails its job and is replaced. Idle workers do not keep the process alive;
// close() terminates them.
import { Worker } from 'node:worker_threads';
import { PromptError } from '../prompt/prompt-error.js';
import type { ModelSpec } from './prompt-model.js';
import type { WorkerJob, WorkerReply } from './worker-protocol.js';

// Built, this file is dist/tokenizer/worker-pool.js and the worker count-worker.js beside it. Run
// from source (tap, tsx), they are .ts files, and a worker thread needs the TypeScript loader: tap's
// is inherited through execArgv, tsx's is not, so the worker registers tsx itself when it can.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_FILE = new URL(FROM_SOURCE ? './count-worker.ts' : './count-worker.js', import.meta.url);

// Loading the model (an 11 MB tokenizer.json parsed whole, nearly all of it surviving) grows a
// worker's young generation to V8's 32 MB and it never shrinks back: capped, a worker holding Qwen3
// takes about 100 MB instead of 130. Counting itself allocates short-lived data, which a small young
// generation serves as well. The old generation is capped too (`heapMb`): V8 otherwise lets the garbage of
// large counts pile up to several times what a worker holds alive (34 MB after a collection, measured
// under the fuzz), and a count that needs more than the cap is one far beyond any model's context.
const YOUNG_GENERATION_MB = 4;

/** Why a worker that ran out of its heap ended: V8 stops it with this code. */
const OUT_OF_MEMORY = 'ERR_WORKER_OUT_OF_MEMORY';

function newWorker(spec: ModelSpec, heapMb: number): Worker {
  const resourceLimits =
    heapMb > 0
      ? { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, maxOldGenerationSizeMb: heapMb }
      : { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };
  const options = { workerData: spec, resourceLimits };
  if (!FROM_SOURCE) return new Worker(WORKER_FILE, options);
  let tsx: string;
  try {
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {
    return new Worker(WORKER_FILE, options);
  }
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(WORKER_FILE.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

interface Job {
  id: number;
  input: string;
  resolve(count: number): void;
  reject(error: unknown): void;
  settled: boolean;
  onAbort: () => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  /** Ends the worker once it has been idle `idleMs`; unset while it counts. */
  idle: NodeJS.Timeout | undefined;
}

export interface WorkerPoolOptions {
  /** At most this many workers. */
  size: number;
  /** A worker idle this long ends (0: never). */
  idleMs: number;
  /** Each worker's old generation at most, MB (0: V8's default); a count that needs more is refused. */
  heapMb: number;
  /** Told when an idle worker ended (the counter logs it). */
  retired?: () => void;
}

export class WorkerPool {
  readonly #spec: ModelSpec;
  readonly #options: WorkerPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  /** Workers loading the model to join the pool. */
  #joining = 0;
  /** Set when a worker added for a waiting job could not load: the pool stays as it is. */
  #full = false;
  #nextId = 1;
  #closed = false;

  private constructor(spec: ModelSpec, options: WorkerPoolOptions) {
    this.#spec = spec;
    this.#options = options;
  }

  /** Starts the first of at most `size` workers and waits until it has loaded the model (throws if it cannot). */
  static async start(spec: ModelSpec, options: WorkerPoolOptions): Promise<WorkerPool> {
    const pool = new WorkerPool(spec, options);
    try {
      await pool.#spawn();
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** The workers started: loaded, or loading the model to join. */
  get workers(): number {
    return this.#slots.length + this.#joining;
  }

  /** Jobs waiting for a free worker. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Counts a PromptInput given as JSON. Rejects with a PromptError when the conversation is at fault. */
  count(input: string, signal?: AbortSignal): Promise<number> {
    if (this.#closed) return Promise.reject(new Error('the tokenizer worker pool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<number>((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        input,
        settled: false,
        resolve: (count) => settle(() => resolve(count)),
        reject: (error) => settle(() => reject(error)),
        onAbort: () => {
          const queued = this.#queue.indexOf(job);
          if (queued >= 0) this.#queue.splice(queued, 1);
          // A job already in a worker runs to its end; its answer is dropped.
          job.reject(signal?.reason);
        },
      };
      const settle = (action: () => void): void => {
        if (job.settled) return;
        job.settled = true;
        signal?.removeEventListener('abort', job.onAbort);
        action();
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
      this.#grow();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const closed = new Error('the tokenizer worker pool is closed');
    for (const job of this.#queue.splice(0)) job.reject(closed);
    const slots = this.#slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.idle);
      slot.job?.reject(closed);
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) return;
      if (slot.job !== null) continue;
      const job = this.#queue.shift()!;
      clearTimeout(slot.idle);
      slot.idle = undefined;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, input: job.input } satisfies WorkerJob);
    }
  }

  /** One more worker when a job waits and none is free or on its way, up to the pool's size. */
  #grow(): void {
    if (this.#closed || this.#queue.length === 0) return;
    if (this.#joining > 0 || this.#slots.length >= this.#options.size) return;
    // After a worker could not be added, the pool stays as it is, unless it has none left (all retired idle).
    if (this.#full && this.#slots.length > 0) return;
    this.#joining++;
    this.#spawn().then(
      () => this.#joining--,
      (error: unknown) => {
        this.#joining--;
        this.#full = true;
        // No worker left to take the queue (all retired): the waiting jobs fail rather than wait for ever.
        if (this.#slots.length === 0) for (const job of this.#queue.splice(0)) job.reject(error);
      },
    );
  }

  /** A free worker ends after `idleMs` without a job; a job given meanwhile keeps it. */
  #idleFrom(slot: Slot): void {
    if (this.#options.idleMs <= 0 || this.#closed) return;
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      const index = this.#slots.indexOf(slot);
      if (slot.job !== null || index < 0) return;
      // Out of the pool first, so its exit is not taken for a death to replace.
      this.#slots.splice(index, 1);
      void slot.worker.terminate();
      this.#options.retired?.();
    }, this.#options.idleMs);
    slot.idle.unref();
  }

  /** A new worker, added to the pool once it has loaded the model. */
  #spawn(): Promise<Slot> {
    return new Promise<Slot>((resolve, reject) => {
      const worker = newWorker(this.#spec, this.#options.heapMb);
      const slot: Slot = { worker, job: null, idle: undefined };
      let ready = false;
      worker.on('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') {
          ready = true;
          worker.unref();
          if (this.#closed) {
            void worker.terminate();
            reject(new Error('the tokenizer worker pool is closed'));
            return;
          }
          this.#slots.push(slot);
          resolve(slot);
          this.#pump();
          if (slot.job === null) this.#idleFrom(slot);
        } else if (reply.type === 'failed') {
          void worker.terminate();
          reject(new Error(`a tokenizer worker could not load the model: ${reply.message}`));
        } else {
          this.#finish(slot, reply);
        }
      });
      worker.on('error', (error: Error & { code?: string }) => {
        if (!ready) reject(error);
        slot.job?.reject(error.code === OUT_OF_MEMORY ? tooLargeToCount(this.#options.heapMb) : workerFailed(error));
        slot.job = null;
      });
      worker.on('exit', () => {
        if (!ready) reject(new Error('a tokenizer worker exited while loading the model'));
        this.#replace(slot);
      });
    });
  }

  #finish(slot: Slot, reply: Extract<WorkerReply, { type: 'count' | 'error' }>): void {
    const job = slot.job;
    slot.job = null;
    slot.worker.unref();
    if (job !== null && job.id === reply.id) {
      if (reply.type === 'count') job.resolve(reply.count);
      else if (reply.prompt !== null)
        job.reject(new PromptError(reply.message, reply.prompt.stage, reply.prompt.param));
      else job.reject(new Error(`a tokenizer worker failed: ${reply.message}`));
    }
    this.#pump();
    if (slot.job === null) this.#idleFrom(slot);
  }

  /** A worker that exited is taken out; unless the pool is closing, a new one takes its place. */
  #replace(slot: Slot): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#slots.splice(index, 1);
    clearTimeout(slot.idle);
    slot.job?.reject(new Error('a tokenizer worker exited'));
    slot.job = null;
    if (this.#closed) return;
    this.#joining++;
    this.#spawn().then(
      () => this.#joining--,
      (error: unknown) => {
        this.#joining--;
        if (this.#slots.length > 0) return;
        for (const job of this.#queue.splice(0)) job.reject(error);
      },
    );
  }
}

function workerFailed(error: Error): Error {
  return new Error(`a tokenizer worker failed: ${error.message}`);
}

/** The conversation whose count outgrew a worker's heap: a 400 naming the messages, not a failure of the gateway. */
function tooLargeToCount(heapMb: number): PromptError {
  return new PromptError(
    `The conversation is too large to count its tokens (more than ${heapMb > 0 ? `the ${heapMb} MB` : 'the memory'} a tokenizer worker holds): far beyond the model's context window.`,
    'messages',
    'messages',
  );
}
