#!/bin/sh
# Fails if the check (draughts-check) or the plan (draughts-plan) depends
# on the builder (draughts-gen), directly or through another crate: the
# forward check must share nothing with the solvers, and the plan that
# both read imports no solver. Dev-dependencies (tests) are not counted.
set -eu
cd "$(dirname "$0")/.."
status=0
for crate in draughts-check draughts-plan; do
    # The tree first, so that a failing cargo fails the check.
    tree="$(cargo tree -p "$crate" -e normal,build --prefix none)"
    if printf '%s\n' "$tree" | grep -q '^draughts-gen '; then
        echo "$crate depends on draughts-gen:" >&2
        cargo tree -p "$crate" -e normal,build -i draughts-gen >&2 || true
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "draughts-check and draughts-plan do not depend on draughts-gen"
exit "$status"
