// The batch APIs as the node serves them: their routes (the router gives them the error shape of their
// family's dialect) and the one entry the exchange runner calls for a `resource` route. The request has been
// through the plugins' request hooks by then: the caller is known (auth), or it was refused.
import type { ResourceRoute } from '../core/route.js';
import { GatewayError } from '../core/errors.js';
import type { ResourceApi } from '../proxy/exchange/run.js';
import type { BatchContext } from './batch-context.js';
import { createFile, deleteFile, fileContent, listFiles, retrieveFile } from './files-api.js';
import {
  cancelMessageBatch,
  createMessageBatch,
  deleteMessageBatch,
  listMessageBatches,
  messageBatchResults,
  retrieveMessageBatch,
} from './message-batches.js';
import { cancelBatch, createBatch, listBatches, retrieveBatch } from './openai-batches.js';

export const BATCH_ROUTES: readonly ResourceRoute[] = [
  { method: 'POST', path: '/v1/files', operation: 'files.create', family: 'openai' },
  { method: 'GET', path: '/v1/files', operation: 'files.list', family: 'openai' },
  { method: 'GET', path: '/v1/files/{id}', operation: 'files.retrieve', family: 'openai' },
  { method: 'DELETE', path: '/v1/files/{id}', operation: 'files.delete', family: 'openai' },
  { method: 'GET', path: '/v1/files/{id}/content', operation: 'files.content', family: 'openai' },
  { method: 'POST', path: '/v1/batches', operation: 'batches.create', family: 'openai' },
  { method: 'GET', path: '/v1/batches', operation: 'batches.list', family: 'openai' },
  { method: 'GET', path: '/v1/batches/{id}', operation: 'batches.retrieve', family: 'openai' },
  { method: 'POST', path: '/v1/batches/{id}/cancel', operation: 'batches.cancel', family: 'openai' },
  { method: 'POST', path: '/v1/messages/batches', operation: 'message_batches.create', family: 'anthropic' },
  { method: 'GET', path: '/v1/messages/batches', operation: 'message_batches.list', family: 'anthropic' },
  { method: 'GET', path: '/v1/messages/batches/{id}', operation: 'message_batches.retrieve', family: 'anthropic' },
  { method: 'DELETE', path: '/v1/messages/batches/{id}', operation: 'message_batches.delete', family: 'anthropic' },
  {
    method: 'POST',
    path: '/v1/messages/batches/{id}/cancel',
    operation: 'message_batches.cancel',
    family: 'anthropic',
  },
  {
    method: 'GET',
    path: '/v1/messages/batches/{id}/results',
    operation: 'message_batches.results',
    family: 'anthropic',
  },
];

/** Answers the batch routes. */
export function batchApi(context: BatchContext): ResourceApi {
  return {
    serve(exchange, door, id) {
      switch (exchange.route.operation) {
        case 'files.create':
          return createFile(context, exchange, door);
        case 'files.list':
          return listFiles(context, exchange, door);
        case 'files.retrieve':
          return retrieveFile(context, exchange, door, id);
        case 'files.delete':
          return deleteFile(context, exchange, door, id);
        case 'files.content':
          return fileContent(context, exchange, door, id);
        case 'batches.create':
          return createBatch(context, exchange, door);
        case 'batches.list':
          return listBatches(context, exchange, door);
        case 'batches.retrieve':
          return retrieveBatch(context, exchange, door, id);
        case 'batches.cancel':
          return cancelBatch(context, exchange, door, id);
        case 'message_batches.create':
          return createMessageBatch(context, exchange, door);
        case 'message_batches.list':
          return listMessageBatches(context, exchange, door);
        case 'message_batches.retrieve':
          return retrieveMessageBatch(context, exchange, door, id);
        case 'message_batches.delete':
          return deleteMessageBatch(context, exchange, door, id);
        case 'message_batches.cancel':
          return cancelMessageBatch(context, exchange, door, id);
        case 'message_batches.results':
          return messageBatchResults(context, exchange, door, id);
        default:
          throw new GatewayError('GW_ERR_INTERNAL', `no batch operation ${exchange.route.operation ?? ''}`);
      }
    },
  };
}
