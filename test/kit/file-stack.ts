// A test file's stack in one line: `const stack = await stackForFile(t, { yaml })` at the top of the file starts
// the sim and the gateway before the first test and closes them when the file's tests are over.
import type { Test } from 'tap';
import { startStack, type Stack, type StackOptions } from '../helpers/stack.js';

export async function stackForFile(t: Pick<Test, 'teardown'>, options: StackOptions = {}): Promise<Stack> {
  const stack = await startStack(options);
  t.teardown(() => stack.close());
  return stack;
}
