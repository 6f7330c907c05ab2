#!/usr/bin/env bash
# The library's public API against the committed baseline (.ci/api/*.json), with swift-api-digester
# from the toolchain: a removed or renamed declaration, a changed type or signature, a lost
# protocol conformance is a breaking change for an app team that depends on SyncLab, and fails.
#
#   Scripts/api-check.sh            # check (needs the release build: make build or make test)
#   Scripts/api-check.sh --record   # rewrite the baseline after an intended change; commit it
#
# The digester is strict: it also reports a parameter added with a default value (source
# compatible, not binary compatible). Additions pass. The dumps name the platform's C library
# (Glibc), so the baseline is recorded and checked on Linux, as CI runs; elsewhere it skips.
set -euo pipefail
cd "$(dirname "$0")/.."
MODULES=(SyncLabKernel SyncLab SyncLabReports SyncLabCLI)
SWIFT=${SWIFT:-swift}
bin=$($SWIFT build -c release -Xswiftc -enable-testing --show-bin-path)
target=$(uname -m)-unknown-linux-gnu
if [ "$(uname -s)" != Linux ]; then echo "api-check: the baseline is Linux's; skipped on $(uname -s)"; exit 0; fi
for m in "${MODULES[@]}"; do
  [ -e "$bin/Modules/$m.swiftmodule" ] || { echo "api-check: no $bin/Modules/$m.swiftmodule: run 'make test' (or 'make build') first" >&2; exit 2; }
done

if [ "${1:-}" = --record ]; then
  for m in "${MODULES[@]}"; do
    swift-api-digester -dump-sdk -module "$m" -I "$bin/Modules" -target "$target" -avoid-location -avoid-tool-args -o ".ci/api/$m.json"
  done
  echo "api-check: recorded .ci/api/{$(IFS=,; echo "${MODULES[*]}")}.json"
  exit 0
fi

status=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for m in "${MODULES[@]}"; do
  swift-api-digester -diagnose-sdk -module "$m" -I "$bin/Modules" -target "$target" -baseline-path ".ci/api/$m.json" -o "$tmp/$m.txt"
  # The report is a list of section headers ("/* Removed Decls */"); any other line is a change.
  if grep -v -e '^/\*.*\*/$' -e '^$' "$tmp/$m.txt" > "$tmp/$m.changes"; then
    echo "api-check: $m breaks its public API against .ci/api/$m.json:"; sed 's/^/  /' "$tmp/$m.changes"
    status=1
  fi
done
if [ $status -ne 0 ]; then
  echo "If the change is intended (and docs/library.md's versioning says how to release it), record it: Scripts/api-check.sh --record"
else
  echo "api-check: public API unchanged against .ci/api/ (${MODULES[*]})"
fi
exit $status
