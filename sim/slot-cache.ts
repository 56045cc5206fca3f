// llama-server's prompt reuse (tools/server/server-context.cpp, get_available_slot; server-task.cpp,
// server_prompt_cache): each parallel slot keeps in its KV cache the tokens it last processed, and a
// request reuses the longest common prefix with the slot it lands on, token by token (vLLM reuses
// 16-token blocks). A request goes to the free slot whose tokens cover the largest share of its
// prompt (more than 10 %), else to the least recently used one. Before a slot takes a prompt that
// keeps less than half of what it holds, its tokens are saved to the host-memory prompt cache
// (`--cache-ram`, 8 GiB by default), and the saved prompt that fits the request best is loaded back
// (one that keeps at least a quarter of itself): so a conversation that comes back after its slot
// served others still hits. At least one prompt token is always computed again; with
// `cache_prompt: false` none is reused. When the answer is
// complete the slot holds prompt + answer (all but its last token, never fed to the model). The slots
// and the saved prompts serve every caller alike: one caller's prefix is another's cache hit.
import type { PromptAdmission, PromptCache } from './flavor.js';

interface Slot {
  tokens: readonly number[];
  busy: boolean;
  lastUsed: number;
}

/** Prompts kept in host memory; the sim counts prompts, not bytes. */
const SAVED_PROMPTS = 256;

export class SlotCache implements PromptCache {
  private readonly slots: Slot[];
  private readonly saved: Array<readonly number[]> = [];
  private clock = 0;

  constructor(slots: number) {
    this.slots = Array.from({ length: Math.max(1, slots) }, () => ({ tokens: [], busy: false, lastUsed: 0 }));
  }

  admit(promptIds: readonly number[], reuse: boolean): PromptAdmission {
    const { slot, save } = this.pick(promptIds);
    if (save) this.swap(slot, promptIds);
    const common = reuse ? commonPrefix(slot.tokens, promptIds) : 0;
    const cachedTokens = Math.max(0, Math.min(common, promptIds.length - 1));
    slot.tokens = promptIds;
    slot.busy = true;
    slot.lastUsed = ++this.clock;
    return {
      cachedTokens,
      finish: (outputIds) => {
        slot.busy = false;
        if (outputIds !== undefined) slot.tokens = [...promptIds, ...outputIds.slice(0, -1)];
      },
    };
  }

  /** The slot a prompt lands on, and whether its tokens go to the prompt cache first. */
  private pick(promptIds: readonly number[]): { slot: Slot; save: boolean } {
    const free = this.slots.filter((slot) => !slot.busy);
    let best: Slot | undefined;
    let bestSimilarity = 0.1;
    for (const slot of free) {
      if (slot.tokens.length === 0) continue;
      const similarity = commonPrefix(slot.tokens, promptIds) / promptIds.length;
      if (similarity > bestSimilarity) {
        best = slot;
        bestSimilarity = similarity;
      }
    }
    if (best) return { slot: best, save: (bestSimilarity * promptIds.length) / best.tokens.length < 0.5 };
    // llama-server would queue a request while every slot is busy; the sim shares the oldest one.
    const pool = free.length > 0 ? free : this.slots;
    return { slot: pool.reduce((a, b) => (b.lastUsed <= a.lastUsed ? b : a)), save: true };
  }

  /** The slot's tokens saved; the saved prompt that suits the request better than they do loaded in their place. */
  private swap(slot: Slot, promptIds: readonly number[]): void {
    if (slot.tokens.length > 0) {
      this.saved.push(slot.tokens);
      if (this.saved.length > SAVED_PROMPTS) this.saved.shift();
    }
    const own = commonPrefix(slot.tokens, promptIds);
    let keepBest = slot.tokens.length > 0 ? own / slot.tokens.length : -1;
    let similarityBest = own / promptIds.length;
    let found = -1;
    this.saved.forEach((tokens, i) => {
      const common = commonPrefix(tokens, promptIds);
      const keep = common / tokens.length;
      const similarity = common / promptIds.length;
      if (keep >= 0.25 && keep > keepBest && similarity > similarityBest) {
        keepBest = keep;
        similarityBest = similarity;
        found = i;
      }
    });
    const restored = found >= 0 ? this.saved.splice(found, 1)[0] : undefined;
    if (restored !== undefined) slot.tokens = restored;
  }
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
