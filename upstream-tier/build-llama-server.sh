#!/usr/bin/env bash
# Builds llama.cpp's llama-server (CPU, no web UI) from the source that the npm package node-llama-cpp
# carries as a git bundle, and caches the binary per machine outside the repository, keyed by the
# llama.cpp commit. Prints the binary's path. Builds only when the cached binary is missing.
#
#   upstream-tier/build-llama-server.sh            # → /root/.cache/open-model-gateway/llama-server/<commit>/llama-server
#
# GitHub and the model hubs cannot be reached here; the npm registry can, and `npm pack` fetches only
# the tarball (nothing of node-llama-cpp is installed or run).
set -euo pipefail

package="node-llama-cpp@3.22.1"
# The commit inside that package's bundle; a new package version changes it, and so the cache key.
commit="de3ff81"
cache_root="${LLAMA_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/open-model-gateway/llama-server}"
binary="$cache_root/$commit/llama-server"

if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

# One build at a time per machine (test files start in parallel): the others wait, then find the binary.
mkdir -p "$cache_root"
exec 9>"$cache_root/.build-lock"
flock 9
if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

for tool in cmake g++ git npm; do
  command -v "$tool" >/dev/null || { echo "build-llama-server: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "$package" >/dev/null
tar xzf node-llama-cpp-*.tgz package/llama/gitRelease.bundle
git clone -q package/llama/gitRelease.bundle llama.cpp
actual=$(git -C llama.cpp rev-parse --short=7 HEAD)
if [ "$actual" != "$commit" ]; then
  echo "build-llama-server: $package carries llama.cpp $actual, expected $commit" >&2
  exit 1
fi

started=$(date +%s)
# LLAMA_USE_PREBUILT_UI would download the web UI; the UI is off altogether.
cmake -S llama.cpp -B llama.cpp/build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
  -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DBUILD_SHARED_LIBS=OFF >&2
cmake --build llama.cpp/build --target llama-server -j "$(nproc)" >&2
echo "build-llama-server: built in $(( $(date +%s) - started )) s" >&2

mkdir -p "$cache_root/$commit"
# Copy then rename, so that a build killed half-way never leaves a binary that looks complete.
cp llama.cpp/build/bin/llama-server "$binary.partial"
mv "$binary.partial" "$binary"
echo "$binary"
