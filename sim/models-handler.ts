// vLLM's GET /v1/models: one model card for the served model.
import { randomUUID } from 'node:crypto';

export interface ModelCard {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'vllm';
  root: string;
  parent: null;
  max_model_len: number;
  permission: Array<Record<string, string | number | boolean | null>>;
}

export function modelList(servedModel: string, maxModelLen: number): { object: 'list'; data: ModelCard[] } {
  const created = Math.floor(Date.now() / 1000);
  const hex = (): string => randomUUID().replaceAll('-', '');
  return {
    object: 'list',
    data: [
      {
        id: servedModel,
        object: 'model',
        created,
        owned_by: 'vllm',
        root: servedModel,
        parent: null,
        max_model_len: maxModelLen,
        permission: [
          {
            id: `modelperm-${hex()}`,
            object: 'model_permission',
            created,
            allow_create_engine: false,
            allow_sampling: true,
            allow_logprobs: true,
            allow_search_indices: false,
            allow_view: true,
            allow_fine_tuning: false,
            organization: '*',
            group: null,
            is_blocking: false,
          },
        ],
      },
    ],
  };
}
