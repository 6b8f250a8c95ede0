#!/usr/bin/env bash
# The long six-piece runs, carried over as many `run`s as they take:
#
#   scripts/six-piece-runs.sh run WORK [DTB]   runs, at idle priority, what
#                                               is left of the steps below
#   scripts/six-piece-runs.sh report WORK      sums what the runs measured
#
# Steps, in order, each in WORK (a folder on a disk that lasts):
#   1. `dtb gen --pieces 6 --dtc` into WORK/dtc (every table up to six
#      pieces with its DTC file; it resumes per unit);
#   2. `dtb info --json` of that set (largest DTC, positions above 50);
#   3. a full `dtb verify` of WORK/dtc (every value and DTC against its
#      moves), one six-piece pair a process so that it resumes per pair;
#   4. `dtb verify --sample 0.01` of it, tables and DTC files;
#   5. 2,000 games from random six-piece won positions played by best_move
#      (the ignored test of tests/dtc.rs, built into WORK/target);
#   6. `dtb gen --pieces 6` (WLD only) into WORK/wld;
#   7. the tables of both builds compared byte for byte.
# A step is done once its marker (WORK/done.*, WORK/verify/*.done) exists.
# Every command runs under `/usr/bin/time -v` into WORK/times/STEP.STAMP,
# one file per `run`; `report` adds them up (core-seconds are user plus
# system time; wall time means something only where nothing else ran).
# A pair's check stopped by a signal starts again at the next `run`;
# its time then lies in WORK/times/aborted, outside the sums.
# DTB_RUNS_PIECES=N runs the same steps up to N pieces instead (a smoke
# test: 4 takes minutes); DTB_RUNS_TARGET is where step 4 builds its test
# (default WORK/target).
# The first `run` copies DTB (default target/release/dtb) to WORK/dtb and
# keeps using that copy, whatever is built later.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

usage() {
    echo "usage: $0 run WORK [DTB] | $0 report WORK" >&2
    exit 2
}

log() { echo "$(date -u +%FT%TZ) $*"; }

# timed STEP COMMAND...: the command at idle priority, measured.
timed() {
    local step=$1
    shift
    mkdir -p "$work/times"
    nice -n 19 /usr/bin/time -v -o "$work/times/$step.$(date +%Y%m%d-%H%M%S)" "$@"
}

# set_aside_times STEP: the measurements of STEP move to WORK/times/aborted
# (work that was lost, so that `report` leaves it out of its sums).
set_aside_times() {
    mkdir -p "$work/times/aborted"
    mv "$work/times/$1".* "$work/times/aborted/" 2> /dev/null || true
}

# The pairs of PIECES pieces in WORK/dtc, one name each (the smaller
# of a material and its mirror), then the mirror when it differs.
six_piece_pairs() {
    local t a b m
    for t in $(cd "$work/dtc/fmjd" && ls -- *.dtb | sed 's/\.dtb$//'); do
        [ "$(printf %s "$t" | tr -d -- - | wc -c)" -eq "$pieces" ] || continue
        a=${t%-*}
        b=${t#*-}
        m=$b-$a
        [[ "$t" < "$m" || "$t" == "$m" ]] || continue
        if [ "$t" == "$m" ]; then echo "$t"; else echo "$t $m"; fi
    done
}

run() {
    local dtb=${1:-$repo/target/release/dtb}
    [ -e "$work/dtb" ] || { cp "$dtb" "$work/dtb" && git -C "$repo" rev-parse HEAD > "$work/commit"; }
    local bin=$work/dtb
    # Idle priority for real: with the scheduler's autogroups (one per
    # `setsid` call), `nice` alone weighs only against the processes of
    # the same autogroup, and a run started so took half the cores from
    # everything else.
    echo 19 > /proc/self/autogroup 2> /dev/null || true
    exec 9> "$work/runs.lock"
    flock -n 9 || { echo "another run holds $work" >&2; return 1; }
    while pgrep -f -- "gen --dir $work/" > /dev/null; do sleep 30; done
    if [ ! -e "$work/done.dtc" ]; then
        log "dtb gen --pieces $pieces --dtc"
        timed gen-dtc "$bin" gen --dir "$work/dtc" --pieces "$pieces" --dtc --quiet >> "$work/dtc.gen.log" 2>&1 || return 1
        touch "$work/done.dtc"
    fi
    if [ ! -e "$work/done.info" ]; then
        log "dtb info"
        "$bin" info --dir "$work/dtc" --json > "$work/dtc.info.json" && touch "$work/done.info"
    fi
    mkdir -p "$work/verify"
    local names key
    while read -r names; do
        key=${names%% *}
        [ -e "$work/verify/$key.done" ] && continue
        log "dtb verify $names"
        # shellcheck disable=SC2086 # one or two material names
        timed "verify-$key" "$bin" verify --dir "$work/dtc" --quiet $names > "$work/verify/$key.txt" 2>&1
        local status=$?
        if [ "$status" -ge 128 ]; then
            # Stopped by a signal: the pair is checked again from the
            # start next time, so the time it spent does not count.
            set_aside_times "verify-$key"
            return 1
        fi
        echo "exit $status" >> "$work/verify/$key.txt"
        touch "$work/verify/$key.done"
    done < <(six_piece_pairs)
    if [ ! -e "$work/done.sample" ]; then
        log "dtb verify --sample 0.01"
        timed sample "$bin" verify --dir "$work/dtc" --sample 0.01 --quiet > "$work/dtc.sample.txt" 2>&1
        echo "exit $?" >> "$work/dtc.sample.txt"
        touch "$work/done.sample"
    fi
    if [ ! -e "$work/done.games" ]; then
        log "2,000 games"
        local target=${DTB_RUNS_TARGET:-$work/target} test_bin
        CARGO_TARGET_DIR=$target nice -n 19 cargo test --test dtc --no-run >> "$work/games.build.log" 2>&1 || return 1
        test_bin=$(ls -t "$target"/debug/deps/dtc-* | grep -v '\.d$' | head -1)
        DTB_DTC_DIR=$work/dtc DTB_DTC_PIECES=$pieces DTB_DTC_GAMES=2000 timed games "$test_bin" --ignored \
            --exact best_moves_win_every_game_in_a_built_set --nocapture > "$work/dtc.games.txt" 2>&1
        echo "exit $?" >> "$work/dtc.games.txt"
        touch "$work/done.games"
    fi
    if [ ! -e "$work/done.wld" ]; then
        log "dtb gen --pieces $pieces"
        timed gen-wld "$bin" gen --dir "$work/wld" --pieces "$pieces" --quiet >> "$work/wld.gen.log" 2>&1 || return 1
        touch "$work/done.wld"
    fi
    if [ ! -e "$work/done.compare" ]; then
        log "compare"
        (cd "$work/dtc/fmjd" && for f in *.dtb; do cmp -s "$f" "../../wld/fmjd/$f" || echo "differs: $f"; done) > "$work/compare.txt"
        echo "compared $(ls "$work"/dtc/fmjd/*.dtb | wc -l) tables" >> "$work/compare.txt"
        touch "$work/done.compare"
    fi
    log "all done"
}

# sum_times PATTERN: core-seconds, wall seconds, peak KB and count of
# the measurements WORK/times/PATTERN.
sum_times() {
    cat "$work"/times/$1.* 2>/dev/null | awk -F': ' '
        /User time/ || /System time/ { cpu += $2 }
        /Elapsed/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; wall += s; runs++ }
        /Maximum resident/ { if ($2 > peak) peak = $2 }
        END { printf "%.0f core-s, %.0f s wall, peak %.0f MiB, %d run(s)", cpu, wall, peak / 1024, runs }'
}

bytes_of() { # bytes_of EXTENSION: total size of the files of PIECES pieces
    local total=0 f name
    for f in "$work"/dtc/fmjd/*."$1"; do
        name=$(basename "$f" ".$1")
        name=${name//-/}
        [ "${#name}" -eq "$pieces" ] && total=$((total + $(stat -c %s "$f")))
    done
    echo $total
}

report() {
    echo "binary: $(cat "$work/commit" 2>/dev/null)"
    for step in gen-dtc gen-wld sample games 'verify-*'; do
        printf '%-10s %s\n' "$step" "$(sum_times "$step")"
    done
    [ -e "$work/done.dtc" ] && echo "$pieces-piece tables $(bytes_of dtb) bytes, DTC files $(bytes_of dtc) bytes"
    [ -e "$work/done.sample" ] && echo "sample: $(grep -E 'checked|^exit' "$work/dtc.sample.txt" | tail -n 2 | tr '\n' ' ')"
    [ -e "$work/done.games" ] && echo "games: $(grep -E ' games, |^exit' "$work/dtc.games.txt" | tr '\n' ' ')"
    [ -e "$work/done.compare" ] && echo "compare: $(tr '\n' ' ' < "$work/compare.txt")"
    # A pair's check counts once it is done (the one running has no verdict yet).
    local failed='' done
    for done in "$work"/verify/*.done; do
        [ -e "$done" ] || continue
        grep -q '^exit 0$' "${done%.done}.txt" || failed="$failed ${done%.done}.txt"
    done
    echo "pairs verified: $(ls "$work"/verify/*.done 2>/dev/null | wc -l); not passed: ${failed:-none}"
}

[ $# -ge 2 ] || usage
work=$(realpath -m "$2")
pieces=${DTB_RUNS_PIECES:-6}
mkdir -p "$work"
case $1 in
run) run "${3:-}" ;;
report) report ;;
*) usage ;;
esac
