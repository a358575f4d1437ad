#!/usr/bin/env bash
# Build Deskhand.app and Deskhand-<version>.dmg on macOS; sign, notarize and staple them when
# the credentials are in the environment.
#
#   packaging/build-macos.sh
#
# Environment (all optional):
#   PYTHON                   default .venv/bin/python (Deskhand installed, and pyinstaller)
#   DIST, WORK               default dist/ and build/ in the repository
#   DESKHAND_SIGN_IDENTITY   "Developer ID Application: Your Name (TEAMID)". Unset: the app keeps
#                            PyInstaller's ad-hoc signature and runs only on the Mac that built it.
#   Notarization (needs DESKHAND_SIGN_IDENTITY), either
#     DESKHAND_NOTARY_PROFILE  a profile saved with `xcrun notarytool store-credentials NAME`
#   or
#     APPLE_ID, APPLE_TEAM_ID, APPLE_APP_PASSWORD  (an app-specific password)
#   DESKHAND_SKIP_DMG=1      stop after Deskhand.app
#
# Signing is inside-out: every loose Mach-O file (Python extensions, dylibs, Playwright's node),
# then each nested .framework (Qt), then the app. Executables get packaging/entitlements.plist
# under the hardened runtime; libraries need no entitlements.
set -euo pipefail

if [ "$(uname)" != "Darwin" ]; then
  echo "build-macos.sh runs on macOS; on Linux use packaging/build-linux.sh" >&2
  exit 1
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
DIST="${DIST:-$ROOT/dist}"
WORK="${WORK:-$ROOT/build}"
ENTITLEMENTS="$ROOT/packaging/entitlements.plist"
IDENTITY="${DESKHAND_SIGN_IDENTITY:-}"
APP="$DIST/Deskhand.app"

step() { printf '\n== %s\n' "$*"; }
die() { echo "build-macos.sh: $*" >&2; exit 1; }

"$PYTHON" -c 'import PyInstaller' 2>/dev/null ||
  die "PyInstaller is missing: $PYTHON -m pip install pyinstaller"
# Fails, naming the fix, when pyproject.toml and the installed package disagree.
VERSION="$("$PYTHON" "$ROOT/packaging/bundle_info.py")"
DMG="$DIST/Deskhand-$VERSION.dmg"

notarize_requested() {
  [ -n "${DESKHAND_NOTARY_PROFILE:-}" ] ||
    { [ -n "${APPLE_ID:-}" ] && [ -n "${APPLE_TEAM_ID:-}" ] && [ -n "${APPLE_APP_PASSWORD:-}" ]; }
}

if notarize_requested && [ -z "$IDENTITY" ]; then
  die "notarization needs a Developer ID: set DESKHAND_SIGN_IDENTITY"
fi

step "Building Deskhand $VERSION"
plutil -lint "$ROOT/packaging/Info.plist" "$ENTITLEMENTS"
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$DIST" --workpath "$WORK" "$ROOT/packaging/deskhand.spec"

step "Checking Info.plist"
PLIST="$APP/Contents/Info.plist"
plutil -lint "$PLIST"
for key in CFBundleIdentifier NSAppleEventsUsageDescription LSMinimumSystemVersion; do
  /usr/libexec/PlistBuddy -c "Print :$key" "$PLIST" >/dev/null || die "Info.plist lacks $key"
done
BUILT_VERSION="$(/usr/libexec/PlistBuddy -c 'Print :CFBundleShortVersionString' "$PLIST")"
[ "$BUILT_VERSION" = "$("$PYTHON" "$ROOT/packaging/bundle_info.py" --bundle-version)" ] ||
  die "Info.plist says $BUILT_VERSION, the package is $VERSION"
"$APP/Contents/MacOS/Deskhand" --version

# Paths under $1, deepest first, one per line (bundle paths have no newlines).
deepest_first() { awk -F/ '{ print NF "\t" $0 }' | sort -rn | cut -f2-; }
is_macho() { file -b "$1" | grep -q 'Mach-O'; }

sign() {  # sign PATH [--entitlements]
  local target="$1"; shift
  local args=(--force --timestamp --options runtime --sign "$IDENTITY")
  if [ "${1:-}" = "--entitlements" ]; then args+=(--entitlements "$ENTITLEMENTS"); fi
  codesign "${args[@]}" "$target"
}

if [ -n "$IDENTITY" ]; then
  step "Signing inside-out as $IDENTITY"
  # 1. Loose Mach-O files outside .framework bundles; executables (node) get the entitlements.
  find "$APP/Contents" -type f ! -path '*.framework/*' | deepest_first | while IFS= read -r file; do
    if is_macho "$file"; then
      if file -b "$file" | grep -q 'executable'; then
        sign "$file" --entitlements
      else
        sign "$file"
      fi
    fi
  done
  # 2. Nested frameworks (Qt): signing the bundle signs its binary and seals its resources.
  find "$APP/Contents" -type d -name '*.framework' | deepest_first | while IFS= read -r framework; do
    sign "$framework"
  done
  # 3. The app: its main executable under the hardened runtime with the entitlements.
  sign "$APP" --entitlements
  codesign --verify --deep --strict --verbose=2 "$APP"
  codesign --display --entitlements - "$APP" | grep -q 'automation.apple-events' ||
    die "the signed app lacks its entitlements"
else
  step "No DESKHAND_SIGN_IDENTITY: keeping the ad-hoc signature (this Mac only)"
  codesign --verify --deep --strict "$APP"
fi

notarize() {  # submit FILE, wait, and fail with the log unless Apple accepts it
  local file="$1" result status id
  local auth=()
  if [ -n "${DESKHAND_NOTARY_PROFILE:-}" ]; then
    auth=(--keychain-profile "$DESKHAND_NOTARY_PROFILE")
  else
    auth=(--apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" --password "$APPLE_APP_PASSWORD")
  fi
  result="$(xcrun notarytool submit "$file" "${auth[@]}" --wait --output-format json)"
  status="$(printf '%s' "$result" | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin).get("status", ""))')"
  if [ "$status" != "Accepted" ]; then
    id="$(printf '%s' "$result" | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin).get("id", ""))')"
    if [ -n "$id" ]; then xcrun notarytool log "$id" "${auth[@]}" >&2 || true; fi
    die "notarization of $(basename "$file") ended as '${status:-unknown}'"
  fi
}

if notarize_requested; then
  step "Notarizing and stapling the app"
  ZIP="$WORK/Deskhand-$VERSION.zip"
  ditto -c -k --keepParent "$APP" "$ZIP"
  notarize "$ZIP"
  xcrun stapler staple "$APP"
  spctl --assess --type execute --verbose "$APP"
fi

if [ "${DESKHAND_SKIP_DMG:-0}" = 1 ]; then
  echo "Built $APP"
  exit 0
fi

step "Making $DMG"
STAGING="$(mktemp -d)"
trap 'rm -rf "$STAGING"' EXIT
ditto "$APP" "$STAGING/Deskhand.app"
ln -s /Applications "$STAGING/Applications"
rm -f "$DMG"
hdiutil create -volname "Deskhand" -srcfolder "$STAGING" -fs HFS+ -format UDZO -ov "$DMG"
if [ -n "$IDENTITY" ]; then
  codesign --force --timestamp --sign "$IDENTITY" "$DMG"
fi
if notarize_requested; then
  step "Notarizing and stapling the DMG"
  notarize "$DMG"
  xcrun stapler staple "$DMG"
  spctl --assess --type open --context context:primary-signature --verbose "$DMG"
fi
echo "Built $APP and $DMG"
