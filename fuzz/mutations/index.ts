// The catalogue of mutations the fuzzer draws from, with their weights.
import type { Mutation } from '../fuzz-case.js';
import { byteOrderMark, invalidUtf8, trailingGarbage, truncated, wholeBody } from './bytes.js';
import { contentEncoding } from './encoding.js';
import { chunked, contentType, headerFlood, wireProfile } from './headers.js';
import {
  deepNesting,
  duplicateKey,
  hugeArray,
  prototypeKey,
  unknownBlock,
  unknownField,
  unknownTool,
} from './shapes.js';
import { emptyValue, missingField, numberLiteral, oddString, streamSwitch, wrongType } from './values.js';

export const MUTATIONS: readonly Mutation[] = [
  wrongType,
  missingField,
  numberLiteral,
  oddString,
  emptyValue,
  streamSwitch,
  deepNesting,
  hugeArray,
  duplicateKey,
  prototypeKey,
  unknownBlock,
  unknownTool,
  unknownField,
  truncated,
  invalidUtf8,
  wholeBody,
  byteOrderMark,
  trailingGarbage,
  contentType,
  chunked,
  wireProfile,
  headerFlood,
  contentEncoding,
];
