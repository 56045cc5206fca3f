// The bound histogram renders exactly what prom-client's own Histogram renders for the same observations.
import t from 'tap';
import { Histogram, Registry } from 'prom-client';
import { BoundHistogram } from '../../../telemetry/bound-histogram.js';

const BUCKETS = [0.01, 0.1, 1, 10];
const OBSERVED: Array<[Record<'dialect' | 'model', string>, number]> = [
  [{ dialect: 'chat', model: 'a' }, 0.005],
  [{ dialect: 'chat', model: 'a' }, 0.01],
  [{ dialect: 'chat', model: 'a' }, 0.5],
  [{ dialect: 'messages', model: 'a' }, 42],
  [{ dialect: 'chat', model: 'a' }, 10],
  [{ dialect: 'messages', model: 'b' }, 0.1],
];

t.test('a bound histogram renders as prom-client renders a histogram of the same observations', async (t) => {
  const ours = new Registry();
  const theirs = new Registry();
  const bound = new BoundHistogram({
    name: 'x_seconds',
    help: 'X.',
    labelNames: ['dialect', 'model'],
    buckets: BUCKETS,
    registers: [ours],
  });
  const plain = new Histogram({
    name: 'x_seconds',
    help: 'X.',
    labelNames: ['dialect', 'model'],
    buckets: BUCKETS,
    registers: [theirs],
  });
  for (const [labels, value] of OBSERVED) {
    bound.series(labels).observe(value);
    plain.observe(labels, value);
  }
  t.equal(await ours.metrics(), await theirs.metrics());
  // get() (the JSON form) too, but for prom-client's exemplar fields, which a bound histogram never has.
  const lines = async (histogram: Histogram): Promise<unknown[]> =>
    (await histogram.get()).values.map(({ labels, value, metricName }) => ({ labels, value, metricName }));
  t.same(await lines(bound), await lines(plain), 'get() too');
});

t.test('a series exists once bound, with zero counts, and is the same series each time', async (t) => {
  const registry = new Registry();
  const bound = new BoundHistogram({
    name: 'y',
    help: 'Y.',
    labelNames: ['replica'],
    buckets: BUCKETS,
    registers: [registry],
  });
  t.equal(bound.series({ replica: 'r1' }), bound.series({ replica: 'r1' }));
  const text = await registry.metrics();
  t.match(text, 'y_bucket{le="0.01",replica="r1"} 0');
  t.match(text, 'y_count{replica="r1"} 0');
});
