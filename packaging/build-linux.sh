#!/usr/bin/env bash
# Build Deskhand's Linux bundle: dist/Deskhand/Deskhand (a onedir bundle: the executable and
# _internal/ next to it), then pack it as dist/Deskhand-<version>-linux-<arch>.tar.gz.
# The bundle carries share/ (a launcher entry and icons, for packagers); a person adds
# Deskhand to their own launcher with `./Deskhand install-desktop-entry`.
#
#   packaging/build-linux.sh               build and pack
#   packaging/build-linux.sh --self-test   also run `Deskhand --self-test` from the bundle
#   packaging/build-linux.sh --no-archive  skip the .tar.gz
#
# Environment: PYTHON (default .venv/bin/python; needs Deskhand installed and pyinstaller),
# DIST and WORK (default dist/ and build/ in the repository).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
DIST="${DIST:-$ROOT/dist}"
WORK="${WORK:-$ROOT/build}"
SELF_TEST=0
ARCHIVE=1
for arg in "$@"; do
  case "$arg" in
    --self-test) SELF_TEST=1 ;;
    --no-archive) ARCHIVE=0 ;;
    *) echo "usage: $0 [--self-test] [--no-archive]" >&2; exit 2 ;;
  esac
done

if ! "$PYTHON" -c 'import PyInstaller' 2>/dev/null; then
  echo "PyInstaller is missing: $PYTHON -m pip install pyinstaller" >&2
  exit 1
fi
# Fails with the fix to run when pyproject.toml and the installed package disagree.
VERSION="$("$PYTHON" "$ROOT/packaging/bundle_info.py")"

"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$DIST" --workpath "$WORK" "$ROOT/packaging/deskhand.spec"

BUNDLE="$DIST/Deskhand"
"$BUNDLE/Deskhand" --version
# The launcher entry and icons, laid out as under /usr/share (Exec expects Deskhand on PATH).
XDG_DATA_HOME="$BUNDLE/share" "$PYTHON" -c \
  'import pathlib, sys; from desktop.system.desktop_entry import install; install(pathlib.Path("Deskhand"))'

if [ "$SELF_TEST" = 1 ]; then
  QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" "$BUNDLE/Deskhand" --self-test
fi

echo "Built $BUNDLE"
if [ "$ARCHIVE" = 1 ]; then
  TARBALL="$DIST/Deskhand-$VERSION-linux-$(uname -m).tar.gz"
  tar -C "$DIST" -czf "$TARBALL" Deskhand
  echo "Packed $TARBALL"
fi
