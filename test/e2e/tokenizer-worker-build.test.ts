// The token counter's worker file is found from the build (dist/, plain node), not only from the sources.
import { join } from 'node:path';
import t from 'tap';
import { packageRoot } from '../../config/package-root.js';
import { TiktokenModel } from '../../tokenizer/tiktoken-model.js';
import { compileToDist, runPlainNode } from '../helpers/from-build.js';
import { REQUESTS } from '../unit/tokenizer/sample-requests.js';

t.test('the worker file is found from the build too (dist/, plain node, no TypeScript loader)', async (t) => {
  const outDir = await compileToDist(t, 'tokenizer', ['tokenizer/worker-pool.ts', 'tokenizer/count-worker.ts']);
  const request = REQUESTS['tool calls and results']!;
  const script = `
    import { WorkerPool } from ${JSON.stringify(join(outDir, 'tokenizer', 'worker-pool.js'))};
    const pool = await WorkerPool.start({ kind: 'tiktoken', encoding: 'gpt2' }, 1);
    console.log(await pool.count(${JSON.stringify(JSON.stringify({ messages: request.messages, tools: request.tools }))}));
    await pool.close();`;
  const stdout = await runPlainNode(outDir, script, packageRoot());
  const gpt2 = await TiktokenModel.load('gpt2');
  t.equal(Number(stdout.trim()), gpt2.count({ messages: request.messages, tools: request.tools ?? null }));
});
