#!/usr/bin/env bash
# Reruns the headline figures of README.md on the machine at hand and
# writes them into README.md's table (between the measure:begin and
# measure:end markers).
#
#   scripts/measure.sh [--baseline COMMIT] [--no-readme] [WORK]
#
# WORK (default target/measure) holds the tables built and each run's
# /usr/bin/time -v report. Every build runs with one thread; the two
# builds that are compared (the plain and the compact layout, or this
# commit and --baseline COMMIT) run side by side, so that a slower or
# busier machine weighs on both alike: only their ratio is the claim.
# --no-readme prints the table instead of writing it. Takes about 25
# minutes on two cores, 35 with --baseline (which first builds COMMIT's
# dtb in a worktree under WORK).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

baseline=""
write_readme=1
work=target/measure
while [ $# -gt 0 ]; do
    case $1 in
        --baseline) baseline=$2; shift 2 ;;
        --no-readme) write_readme=0; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "measure.sh: unknown option $1" >&2; exit 2 ;;
        *) work=$1; shift ;;
    esac
done
[ -x /usr/bin/time ] || { echo "measure.sh: needs /usr/bin/time (Debian's package time)" >&2; exit 1; }
mkdir -p "$work"
work=$(cd "$work" && pwd)

cargo build --release --quiet
dtb=$work/dtb
cp target/release/dtb "$dtb"
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- . ':!README.md' || commit="$commit+changes"

# Runs a command under /usr/bin/time -v, its report in $work/$1.time.
timed() {
    local name=$1
    shift
    /usr/bin/time -v -o "$work/$name.time" "$@" > "$work/$name.out" 2> "$work/$name.err"
}
# A field of a /usr/bin/time -v report.
field() { grep -F "$2" "$work/$1.time" | sed 's/.*: //'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
cpu_seconds() { calc %.1f "$(field "$1" 'User time') + $(field "$1" 'System time')"; }
peak_mib() { calc %.0f "$(field "$1" 'Maximum resident') / 1024"; }
wall() { field "$1" 'Elapsed (wall clock)'; }
table_bytes() { du -sb --apparent-size "$1" | cut -f1; }
mb() { calc %.1f "$1 / 1000000"; }
ratio() { calc %.3f "$1 / $2"; }

# Two commands side by side; waits for both.
side_by_side() {
    local a=$1 b=$2
    shift 2
    local split
    for ((split = 1; split <= $#; split++)); do [ "${!split}" = "--" ] && break; done
    timed "$a" "${@:1:split-1}" &
    local first=$!
    timed "$b" "${@:split+1}"
    wait "$first"
}

rm -rf "$work/plain" "$work/compact" "$work/base"
echo "measure: four pieces" >&2
timed gen4 "$dtb" gen --dir "$work/plain" --threads 2 --quiet
echo "measure: five pieces, plain and compact side by side, one thread each" >&2
side_by_side gen5 gen5c \
    "$dtb" gen --pieces 5 --dir "$work/plain" --threads 1 --quiet -- \
    "$dtb" gen --pieces 5 --dir "$work/compact" --threads 1 --quiet --compact --one-side --min-saving 0.10
timed level19 "$dtb" compact --dir "$work/compact" --level 19 --recompress-only --quiet
echo "measure: verify of the plain five-piece set" >&2
timed verify5 "$dtb" verify --dir "$work/plain" --threads 2 --quiet
echo "measure: perft" >&2
timed perft "$dtb" perft start 11 --threads 1
echo "measure: probe benchmarks" >&2
cargo bench --quiet --bench probe -- --warm-up-time 1 --measurement-time 3 \
    'probe/(cached_non_capture|capture_resolution|block_decode)$' > "$work/bench.out" 2>&1
# The time of a probe: criterion's mean for 1,000 probes, over 1,000.
probe_time() {
    python3 -c 'import json,sys
ns = json.load(open(sys.argv[1]))["mean"]["point_estimate"] / 1000
print(f"{ns / 1000:.1f} us" if ns >= 1000 else f"{ns:.0f} ns")' \
        "target/criterion/probe/$1/new/estimates.json"
}

baseline_row=""
if [ -n "$baseline" ]; then
    echo "measure: five pieces, this commit against $baseline side by side" >&2
    rm -rf "$work/baseline-src"
    git worktree add --force --detach "$work/baseline-src" "$baseline" > /dev/null
    (cd "$work/baseline-src" && cargo build --release --quiet --bin dtb)
    cp "$work/baseline-src/target/release/dtb" "$work/dtb-baseline"
    git worktree remove --force "$work/baseline-src"
    side_by_side genb gen5again \
        "$work/dtb-baseline" gen --pieces 5 --dir "$work/base" --threads 1 --quiet -- \
        "$dtb" gen --pieces 5 --dir "$work/plain-again" --threads 1 --quiet
    baseline_row="| \`dtb gen --pieces 5\` against $baseline, side by side, one thread each | $(ratio "$(cpu_seconds gen5again)" "$(cpu_seconds genb)")x the core-seconds ($(cpu_seconds gen5again) against $(cpu_seconds genb)) |"
    rm -rf "$work/plain-again"
fi

plain5=$(table_bytes "$work/plain/fmjd")
compact5=$(table_bytes "$work/compact/fmjd")
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
mem=$(free -g | awk '/^Mem:/ {print $2}')
table=$(cat <<EOF
Measured by \`scripts/measure.sh\` at commit $commit on $(date -u +%Y-%m-%d), $(nproc) cores ($cpu), $mem GiB.

| what | figure |
|---|---|
| \`dtb gen\` (every table up to 4 pieces, fmjd, 2 threads) | $(wall gen4) wall, $(cpu_seconds gen4) core-seconds, $(peak_mib gen4) MiB peak |
| \`dtb gen --pieces 5\`, one thread | $(wall gen5) wall, $(cpu_seconds gen5) core-seconds, $(peak_mib gen5) MiB peak, $(mb "$plain5") MB of tables |
| the same, \`--compact --one-side --min-saving 0.10\`, run beside it | $(ratio "$(cpu_seconds gen5c)" "$(cpu_seconds gen5)")x the core-seconds, $(peak_mib gen5c) MiB peak |
| its tables after \`dtb compact --level 19 --recompress-only\` | $(mb "$compact5") MB ($(ratio "$compact5" "$plain5")x the plain set), $(cpu_seconds level19) core-seconds |
| \`dtb verify\` of the plain five-piece set, 2 threads | $(wall verify5) wall, $(cpu_seconds verify5) core-seconds ($(ratio "$(cpu_seconds verify5)" "$(cpu_seconds gen5)")x its build), $(peak_mib verify5) MiB peak |
| probe, block cached: a position without capture / a capture resolved / a block decoded | $(probe_time cached_non_capture) / $(probe_time capture_resolution) / $(probe_time block_decode) |
| \`dtb perft start 11\`, one thread | $(wall perft) wall |
${baseline_row}
EOF
)
table=$(printf '%s\n' "$table" | sed '/^$/N;/^\n$/D')

if [ "$write_readme" = 0 ]; then
    printf '%s\n' "$table"
    exit 0
fi
grep -q '<!-- measure:begin -->' README.md || { echo "measure.sh: README.md has no measure:begin marker" >&2; exit 1; }
python3 - "$table" <<'PY'
import re, sys
path = "README.md"
text = open(path).read()
block = "<!-- measure:begin -->\n" + sys.argv[1].rstrip("\n") + "\n<!-- measure:end -->"
text = re.sub(r"<!-- measure:begin -->.*?<!-- measure:end -->", lambda _: block, text, flags=re.S)
open(path, "w").write(text)
PY
echo "measure: README.md updated ($work holds the runs)" >&2
