// The messages between the count pool (worker-pool.ts) and its workers (count-worker.ts).

/** A conversation to count: a PromptInput as JSON (a string copies cheaply between threads). */
export interface WorkerJob {
  id: number;
  input: string;
}

export type WorkerReply =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'count'; id: number; count: number }
  /** `prompt` is set when the conversation itself was at fault (a PromptError). */
  | {
      type: 'error';
      id: number;
      message: string;
      prompt: { stage: 'messages' | 'template'; param: string | null } | null;
    };
