// The deployment guide shows the files the repository ships, not copies that drift: the nginx
// configuration (the one the fleet tests run in front of their nodes) and the systemd unit appear in
// docs/deployment.md byte for byte.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { packageRoot } from '../../../config/package-root.js';

const docs = join(packageRoot(), 'docs');
const guide = readFileSync(join(docs, 'deployment.md'), 'utf8');

/** The body of the guide's fenced block of that language (one only). */
function fenced(language: string): string {
  const blocks = [...guide.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))];
  if (blocks.length !== 1) throw new Error(`docs/deployment.md has ${blocks.length} \`\`\`${language} blocks`);
  return blocks[0]![1]!;
}

t.test('docs/deployment.md shows docs/nginx/gateway.conf, the file the fleet tests run, verbatim', async (t) => {
  t.equal(fenced('nginx'), readFileSync(join(docs, 'nginx', 'gateway.conf'), 'utf8'));
});

t.test('docs/deployment.md shows docs/systemd/gateway.service verbatim', async (t) => {
  t.equal(fenced('ini'), readFileSync(join(docs, 'systemd', 'gateway.service'), 'utf8'));
});
