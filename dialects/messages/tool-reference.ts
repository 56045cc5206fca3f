// A `tool_reference` block in a tool result: how Claude Code's ToolSearch answers, one block per
// deferred tool (`defer_loading: true`) it loads. The gateway offers the model every tool from the
// start (it defers none), so a reference adds no schema: the model reads it as a line naming the tool.
import { GatewayError } from '../../core/errors.js';
import type { ContentBlock, TextBlock } from './types.js';

export function referencedToolText(block: ContentBlock & { tool_name?: unknown }, param: string): TextBlock {
  if (typeof block.tool_name !== 'string' || block.tool_name === '')
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Missing required field '${param}.tool_name'.`,
      `${param}.tool_name`,
    );
  return { type: 'text', text: `Tool loaded: ${block.tool_name}` };
}
