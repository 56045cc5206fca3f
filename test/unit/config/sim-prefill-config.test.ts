// The built-in sim's prefill cost (config/default.yaml `sim.prefill_us_per_token`, docs/sim.md): none unless the
// config or GATEWAY_SIM_PREFILL_US_PER_TOKEN sets it.
import t from 'tap';
import { loadConfig } from '../../../config/load.js';

t.test('sim.prefill_us_per_token is unset by default: no prefill cost', async (t) => {
  t.equal(loadConfig(undefined, {}).config.sim.prefill_us_per_token, undefined);
});

t.test('GATEWAY_SIM_PREFILL_US_PER_TOKEN sets sim.prefill_us_per_token', async (t) => {
  t.equal(loadConfig(undefined, { GATEWAY_SIM_PREFILL_US_PER_TOKEN: '30' }).config.sim.prefill_us_per_token, 30);
});

t.test('a value that is not a whole number is refused at load', async (t) => {
  t.throws(
    () => loadConfig(undefined, { GATEWAY_SIM_PREFILL_US_PER_TOKEN: '2.5' }),
    /GATEWAY_SIM_PREFILL_US_PER_TOKEN/,
  );
});
