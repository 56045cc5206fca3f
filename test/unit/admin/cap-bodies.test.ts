// The body that sets a key's or a member's caps (admin/cap-bodies.ts): the cap fields by their wire names,
// each a whole number from 0 to its maximum or null; anything else is a 400 naming the field.
import t from 'tap';
import { capsBody } from '../../../admin/cap-bodies.js';
import { AdminError } from '../../../admin/errors.js';
import { CAP_FIELDS, MAX_RATE_CAP } from '../../../store/cap-rules.js';

/** The AdminError capsBody refuses `body` with. */
function refusal(body: Record<string, unknown>): AdminError {
  try {
    capsBody(body);
  } catch (error) {
    if (error instanceof AdminError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

const SPEND_FIELDS = ['day_micros', 'week_micros', 'month_micros'];
const RATE_FIELDS = [
  'requests_per_minute',
  'input_tokens_per_minute',
  'output_tokens_per_minute',
  'concurrent_requests',
];

t.test('every cap field is read under its wire name', async (t) => {
  t.same(
    capsBody({
      day_micros: 1,
      week_micros: 2,
      month_micros: 3,
      requests_per_minute: 4,
      input_tokens_per_minute: 5,
      output_tokens_per_minute: 6,
      concurrent_requests: 7,
    }),
    {
      dayMicros: 1,
      weekMicros: 2,
      monthMicros: 3,
      requestsPerMinute: 4,
      inputTokensPerMinute: 5,
      outputTokensPerMinute: 6,
      concurrentRequests: 7,
    },
  );
  t.same([...SPEND_FIELDS, ...RATE_FIELDS].sort(), Object.values(CAP_FIELDS).sort(), 'the fields tested are all');
});

t.test('null and an absent field are no cap; an empty body clears every cap', async (t) => {
  t.same(capsBody({ day_micros: null, concurrent_requests: 2 }), { concurrentRequests: 2 });
  t.same(capsBody({}), {});
});

t.test('zero is a cap (nothing allowed), not its absence', async (t) => {
  t.same(capsBody({ day_micros: 0, concurrent_requests: 0 }), { dayMicros: 0, concurrentRequests: 0 });
});

t.test('a spend cap goes up to Number.MAX_SAFE_INTEGER micro-credits, not beyond', async (t) => {
  for (const field of SPEND_FIELDS) {
    t.same(Object.values(capsBody({ [field]: Number.MAX_SAFE_INTEGER })), [Number.MAX_SAFE_INTEGER], field);
    const refused = refusal({ [field]: Number.MAX_SAFE_INTEGER + 1 });
    t.equal(refused.status, 400);
    t.equal(refused.field, field);
  }
});

t.test('a rate or concurrency cap goes up to MAX_RATE_CAP, not beyond', async (t) => {
  for (const field of RATE_FIELDS) {
    t.same(Object.values(capsBody({ [field]: MAX_RATE_CAP })), [MAX_RATE_CAP], field);
    const refused = refusal({ [field]: MAX_RATE_CAP + 1 });
    t.equal(refused.status, 400);
    t.equal(refused.field, field);
    t.match(refused.message, `'${field}' must be a whole number from 0 to ${MAX_RATE_CAP}`);
  }
});

t.test('a negative cap is refused, naming its field', async (t) => {
  for (const field of [...SPEND_FIELDS, ...RATE_FIELDS]) t.equal(refusal({ [field]: -1 }).field, field);
});

t.test('a fractional cap is refused, naming its field', async (t) => {
  for (const field of [...SPEND_FIELDS, ...RATE_FIELDS]) t.equal(refusal({ [field]: 1.5 }).field, field);
});

t.test('a cap that is not a number is refused, naming its field (credits as text included)', async (t) => {
  for (const value of ['5', '2.5', true, [], {}])
    t.equal(refusal({ day_micros: value }).field, 'day_micros', JSON.stringify(value));
  t.equal(refusal({ concurrent_requests: '3' }).field, 'concurrent_requests');
});

t.test('an unknown field is refused, naming it', async (t) => {
  for (const field of ['day', 'dayMicros', 'rpm', 'balance']) {
    const refused = refusal({ [field]: 1 });
    t.equal(refused.status, 400);
    t.equal(refused.field, field);
    t.match(refused.message, /is not a cap: the caps are day_micros, /);
  }
});
