// The fields that newer versions of the search tool (`web_search_20260209`, `web_search_20260318`) add
// for dynamic filtering, where code the model runs in Anthropic's code-execution sandbox calls the
// search. This gateway runs no code execution (that server tool is refused): the model always calls
// the search itself, the `direct` caller, so a tool only code may call cannot be honoured (400).
import { GatewayError } from '../../core/errors.js';

const DIRECT = 'direct';
/** How results consumed by a completed code-execution call appear; without code execution every result is a direct call's, returned in full either way. */
const INCLUSIONS: readonly unknown[] = ['full', 'excluded'];

export function checkSearchCallers(
  tool: Readonly<Record<string, unknown>>,
  invalid: (field: string, why: string) => GatewayError,
): void {
  const callers = tool.allowed_callers;
  // Absent, null or empty: not set (as for the domain lists), so the model calls it directly.
  if (callers != null && !(Array.isArray(callers) && callers.length === 0)) {
    if (!Array.isArray(callers) || !callers.every((caller) => typeof caller === 'string'))
      throw invalid('allowed_callers', 'must be an array of caller names');
    if (!callers.includes(DIRECT))
      throw invalid(
        'allowed_callers',
        `this gateway runs no code execution, so only the model calls web search: include '${DIRECT}'`,
      );
  }
  if (tool.response_inclusion != null && !INCLUSIONS.includes(tool.response_inclusion))
    throw invalid('response_inclusion', "must be 'full' or 'excluded'");
}
