#!/usr/bin/env bash
# Installs a Claude Code CLI from npm into a cache folder and prints the path of its native
# binary: by default the pinned version (CLI_VERSION beside this file); with "newest", the
# newest tested (CLI_VERSION_NEWEST); or the version given (install-cli.sh 2.1.332).
# Idempotent: a cached install of the same version is reused. The real-CLI tests find the
# pinned binary the same way (another one through BENCH_CLAUDE_BIN and BENCH_CLAUDE_VERSION).
#   BENCH_CLI_CACHE  the cache folder (default: ~/.cache/benchcore-claude-cli)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
  "") version=$(tr -d ' \n' < "$here/CLI_VERSION") ;;
  newest) version=$(tr -d ' \n' < "$here/CLI_VERSION_NEWEST") ;;
  *) version=$1 ;;
esac
if ! printf '%s' "$version" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'; then
  echo "install-cli.sh: '$version' is not a version like 2.1.332" >&2; exit 2
fi
cache=${BENCH_CLI_CACHE:-$HOME/.cache/benchcore-claude-cli}
dest="$cache/$version"
bin="$dest/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
case "$(uname -m)" in
  aarch64|arm64) bin="$dest/node_modules/@anthropic-ai/claude-code-linux-arm64/claude" ;;
esac
if [ ! -x "$bin" ] || [ "$("$bin" --version 2>/dev/null | cut -d' ' -f1)" != "$version" ]; then
  command -v npm >/dev/null 2>&1 || { echo "install-cli.sh: npm is needed (apt-get install -y npm)" >&2; exit 1; }
  mkdir -p "$dest"
  (cd "$dest" && npm install --silent --no-audit --no-fund --no-save "@anthropic-ai/claude-code@$version" >&2)
fi
"$bin" --version >&2
echo "$bin"
