# Shared by scripts/run and scripts/test: a Python 3.11+ virtualenv in .venv with Deskhand installed.
# Usage: source scripts/bootstrap.sh [extras]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

find_python() {
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "Deskhand needs Python 3.11 or newer. Install it (macOS: brew install python@3.12;" \
       "Debian/Ubuntu: sudo apt-get install python3 python3-venv) and try again." >&2
  return 1
}

# What the script is doing, on stderr so that output meant for a pipe stays clean.
say() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian/Ubuntu: the libraries Qt needs, and Chromium for the browser; installed only when missing.
ensure_debian_packages() {
  command -v dpkg >/dev/null 2>&1 || return 0
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "Installing system packages: ${missing[*]}"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
}

QT_RUNTIME_PACKAGES=(python3-venv libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0)

ensure_venv() {
  local extras="${1:-}"
  local python; python=$(find_python)
  if [ ! -x .venv/bin/python ]; then
    say "Creating a Python environment in .venv (with $("$python" --version))…"
    "$python" -m venv .venv
  fi
  local spec="."; [ -n "$extras" ] && spec=".[$extras]"
  # Reinstall only when pyproject.toml changed since the last install with these extras.
  local stamp=".venv/.installed-${extras:-base}"
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    say "Updating pip…"
    .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
    say "Installing Deskhand${extras:+ with its $extras tools} and what it needs (Qt, the Anthropic SDK, Playwright…); the first time takes a few minutes…"
    .venv/bin/python -m pip install -q --disable-pip-version-check -e "$spec"
    touch "$stamp"
    say "Installed."
  fi
}
