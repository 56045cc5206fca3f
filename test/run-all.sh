#!/usr/bin/env bash
# The whole suite (`npm test`): the build, then the static checks (lint, types, import rules, format) beside the
# tests, so that they use the core tap leaves idle while a test waits on its servers. Fails if either fails.
set -uo pipefail
cd "$(dirname "$0")/.."
npm run build || exit 1
checks_log=$(mktemp)
(npm run lint && npm run typecheck && npm run deps && npm run format:check) >"$checks_log" 2>&1 &
checks=$!
tap "$@"
tests=$?
wait "$checks"
checks_status=$?
cat "$checks_log"
rm -f "$checks_log"
if [ "$checks_status" -ne 0 ]; then echo "the static checks failed (their output is above)"; fi
[ "$tests" -eq 0 ] && [ "$checks_status" -eq 0 ]
