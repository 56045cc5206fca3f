import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../config/load.js';

const dir = mkdtempSync(join(tmpdir(), 'gateway-responses-config-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

t.test('dialects.responses.function_tools is off by default (spec rule 5)', async (t) => {
  t.equal(loadConfig(undefined, {}).config.dialects.responses.function_tools, false);
});

t.test("a config file turns function tools on, keeping the other dialects' settings", async (t) => {
  const { config } = loadConfig(file('on.yaml', 'dialects:\n  responses:\n    function_tools: true\n'), {});
  t.equal(config.dialects.responses.function_tools, true);
  t.equal(config.dialects.messages.max_tokens, 8000);
});

t.test('a wrong value or an unknown key under dialects.responses names the line and the key', async (t) => {
  t.throws(() => loadConfig(file('bad.yaml', 'dialects:\n  responses:\n    function_tools: yes please\n'), {}), {
    message: /bad\.yaml:3: key 'dialects\.responses\.function_tools' must be boolean/,
  });
  t.throws(() => loadConfig(file('unknown.yaml', 'dialects:\n  responses:\n    function_tool: true\n'), {}), {
    message: /unknown\.yaml:\d+: unknown key 'dialects\.responses\.function_tool'/,
  });
});
