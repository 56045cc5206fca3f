// A worker thread of the count pool (worker-pool.ts): loads the model named in workerData once,
// says `ready` (or `failed`), then answers each `{id, input}` job (input: a PromptInput as JSON)
// with `{id, count}` or `{id, error}`, one job at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { PromptError } from '../prompt/prompt-error.js';
import type { PromptInput } from '../prompt/prompt-input.js';
import { loadPromptModel, type ModelSpec, type PromptModel } from './prompt-model.js';
import type { WorkerJob, WorkerReply } from './worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('count-worker.ts runs as a worker thread');

let model: PromptModel | undefined;
try {
  model = await loadPromptModel(workerData as ModelSpec);
  port.postMessage({ type: 'ready' } satisfies WorkerReply);
} catch (err) {
  port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) } satisfies WorkerReply);
}

port.on('message', (job: WorkerJob) => {
  let reply: WorkerReply;
  try {
    if (model === undefined) throw new Error('the tokenizer did not load');
    reply = { type: 'count', id: job.id, count: model.count(JSON.parse(job.input) as PromptInput) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    reply =
      err instanceof PromptError
        ? { type: 'error', id: job.id, message, prompt: { stage: err.stage, param: err.param } }
        : { type: 'error', id: job.id, message, prompt: null };
  }
  port.postMessage(reply);
});
