#!/usr/bin/env bash
# Makes the virtual environment with the Python SDKs of requirements.txt, cached per machine outside the
# repository and keyed by the requirements and the interpreter, and prints its python's path. Installs only
# when the cached environment is missing.
#
#   clients/python/ensure-venv.sh    # → /root/.cache/open-model-gateway/python-clients/<key>/bin/python
#
# The packages come from the machine's pip configuration (here a local mirror); --retries 0 fails at once
# when one is missing rather than retrying a registry that cannot be reached.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
requirements="$here/requirements.txt"
python=${PYTHON:-python3}
command -v "$python" >/dev/null || { echo "ensure-venv: $python is missing" >&2; exit 1; }

# A new pin or another interpreter makes another environment; the old one stays until removed by hand.
key=$({ cat "$requirements"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-16)
cache_root="${PYTHON_CLIENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/open-model-gateway/python-clients}"
venv="$cache_root/$key"

if [ -x "$venv/bin/python" ]; then
  echo "$venv/bin/python"
  exit 0
fi

# One install at a time per machine (test files start in parallel): the others wait, then find it.
mkdir -p "$cache_root"
exec 9>"$cache_root/.install-lock"
flock 9
if [ -x "$venv/bin/python" ]; then
  echo "$venv/bin/python"
  exit 0
fi

# Made beside its final place then renamed, so that an install killed half-way never looks complete
# (a venv finds its packages relative to its bin/python, so the rename keeps it working).
partial="$venv.partial"
rm -rf "$partial"
"$python" -m venv "$partial"
"$partial/bin/python" -m pip install --quiet --no-input --disable-pip-version-check --retries 0 \
  -r "$requirements" >&2
mv "$partial" "$venv"
echo "$venv/bin/python"
