// The server the built-in sim plays (config/default.yaml `sim.flavor`, docs/sim.md): vLLM unless
// the config or GATEWAY_SIM_FLAVOR says llama-server.
import t from 'tap';
import { loadConfig } from '../../../config/load.js';

t.test('sim.flavor is unset by default: the sim plays vLLM', async (t) => {
  t.equal(loadConfig(undefined, {}).config.sim.flavor, undefined);
});

t.test('GATEWAY_SIM_FLAVOR sets sim.flavor', async (t) => {
  t.equal(loadConfig(undefined, { GATEWAY_SIM_FLAVOR: 'llama-server' }).config.sim.flavor, 'llama-server');
});

t.test('a flavor the sim cannot play is refused at load', async (t) => {
  t.throws(() => loadConfig(undefined, { GATEWAY_SIM_FLAVOR: 'sglang' }), /GATEWAY_SIM_FLAVOR/);
});
