// Replayed thinking (the message dialect's `thinking` blocks in an assistant turn of a later request):
// the decoder gives the signed ones to the model as that turn's `reasoning_content` and lists them in
// `thinking_replay`; here, before anything runs, each must verify, or the request is a 400 naming the
// block's signature. Unsigned blocks never reach the model (the decoder drops them).
import type { ChatRequest, ReplayedThinking } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { ThinkingSigner } from '../../core/thinking-signer.js';

export function checkThinkingReplay(request: ChatRequest, signer: ThinkingSigner): void {
  const replay: ReplayedThinking[] | undefined = request.gateway?.thinking_replay;
  if (replay === undefined) return;
  delete request.gateway?.thinking_replay;
  for (const block of replay) {
    if (signer.verifies(block.thinking, block.signature)) continue;
    const param = `${block.param}.signature`;
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid value for '${param}': this thinking block was not written by this gateway's model, or it or its signature was changed; pass thinking blocks back exactly as they were received.`,
      param,
    );
  }
}
