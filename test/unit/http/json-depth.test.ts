// The nesting-depth scan that runs before JSON.parse (http/json-depth.ts).
import t from 'tap';
import { nestsDeeperThan } from '../../../http/json-depth.js';

const deeper = (text: string, max: number): boolean => nestsDeeperThan(Buffer.from(text), max);

t.test('depth counts nested arrays and objects: [] is 1, {"a":[1]} is 2', async (t) => {
  t.equal(deeper('[]', 1), false);
  t.equal(deeper('[[]]', 1), true);
  t.equal(deeper('{"a":[1]}', 2), false);
  t.equal(deeper('{"a":[1]}', 1), true);
  t.equal(deeper('[[],[],{"a":{}}]', 3), false, 'siblings do not add up');
  t.equal(deeper('1', 1), false);
});

t.test('brackets inside strings do not count, escaped quotes do not end a string', async (t) => {
  t.equal(deeper('["[[[[{{{{"]', 1), false);
  t.equal(deeper('["\\"[[[["]', 1), false, 'an escaped quote stays inside the string');
  t.equal(deeper('["\\\\", [[]]]', 2), true, 'an escaped backslash before the quote ends the string');
  t.equal(deeper('{"k\\"{":"v"}', 1), false);
});

t.test('long strings (found by a native search) keep the same rules', async (t) => {
  const long = 'x'.repeat(100);
  t.equal(deeper(`["${long}[[[["]`, 1), false);
  t.equal(deeper(`["${long}\\"[[[${long}\\\\\\"[[["]`, 1), false, 'escaped quotes far into a long string');
  t.equal(deeper(`["${long}\\\\", [[]]]`, 2), true, 'an even run of backslashes ends a long string');
  t.equal(deeper(`["${'\\\\'.repeat(40)}", [[]]]`, 2), true, 'a string of backslashes only');
});

t.test('multi-byte UTF-8 never looks like a bracket or a quote', async (t) => {
  t.equal(deeper('["é€😀[", "ü"]', 1), false);
});

t.test('a text that is not JSON is left to the parser unless it is too deep', async (t) => {
  t.equal(deeper('["never ends', 1), false);
  t.equal(deeper(']]]]', 1), false);
  t.equal(deeper('[[[[', 3), true);
});

t.test('a body nested 100,000 deep is found in one pass', async (t) => {
  t.equal(nestsDeeperThan(Buffer.from('['.repeat(100_000) + ']'.repeat(100_000)), 64), true);
  t.equal(nestsDeeperThan(Buffer.from('{"a":'.repeat(64) + '1' + '}'.repeat(64)), 64), false);
});
