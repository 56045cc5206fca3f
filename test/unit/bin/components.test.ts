// Startup as components (bin/components.ts): parts start in order and close in the reverse order.
import t from 'tap';
import { Components, type Component } from '../../../bin/components.js';

function part(
  name: string,
  events: string[],
  options: { failStart?: boolean; failClose?: boolean } = {},
): Component<string> {
  return {
    name,
    start: () => {
      if (options.failStart) throw new Error(`${name} would not start`);
      events.push(`start ${name}`);
      return name;
    },
    ready: () => [{ name: `${name} check`, probe: () => undefined }],
    url: () => `http://${name}`,
    close: () => {
      if (options.failClose) throw new Error(`${name} would not close`);
      events.push(`close ${name}`);
    },
  };
}

t.test('parts close in the reverse of their start order', async (t) => {
  const events: string[] = [];
  const node = new Components(() => t.fail('no part failed'));
  for (const name of ['store', 'plugins', 'listener']) await node.start(part(name, events));
  await node.close();
  t.same(events, ['start store', 'start plugins', 'start listener', 'close listener', 'close plugins', 'close store']);
});

t.test('a start that failed is abandoned: what had started closes, even past a part that fails to close', async (t) => {
  const events: string[] = [];
  const unclosed: string[] = [];
  const node = new Components((name) => unclosed.push(name));
  await node.start(part('store', events));
  await node.start(part('tracing', events, { failClose: true }));
  await t.rejects(node.start(part('plugins', events, { failStart: true })), /plugins would not start/);
  await node.abandon();
  t.same(events, ['start store', 'start tracing', 'close store']);
  t.same(unclosed, ['tracing']);
});

t.test("the readiness checks are the started parts', in start order; a part's URL by its name", async (t) => {
  const node = new Components(() => t.fail('no part failed'));
  await node.start(part('store', []));
  await node.start({ name: 'secret', start: () => 's' });
  await node.start(part('listener', []));
  t.same(
    node.readinessChecks().map((check) => check.name),
    ['store check', 'listener check'],
  );
  t.equal(node.urlOf('listener'), 'http://listener');
  t.equal(node.urlOf('secret'), undefined);
});
