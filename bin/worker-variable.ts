/** The variable that tells a process forked by the node's primary that it is a worker, and which (1…N). */
export const WORKER_VARIABLE = 'GATEWAY_WORKER';
