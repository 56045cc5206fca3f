// The gateway a fuzz run targets: the full default chain on the sim, with one rate-limit tier high
// enough that a 429 is rare (it is still a fine answer: a 4xx in the dialect).

export const FUZZ_GATEWAY_YAML = `plugins:
  - name: auth
  - name: ratelimit
  - name: meter
  - name: promptcache
  - name: search
limits:
  tiers:
    - { name: Fuzz, from_spend: 0, requests_per_minute: 200000, input_tokens_per_minute: 100000000, output_tokens_per_minute: 20000000 }
`;
