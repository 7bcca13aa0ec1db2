#!/usr/bin/env bash
# bench/decode_text.sh: what `etmkit decode` and `etmkit packets` cost as a
# user runs them, listing text included (cli/outbuf.c writes it): each
# listing form written to /dev/null, best of --runs, wall clock and CPU
# (user + system) in seconds, plus the listing's size. Give --base an
# older etmkit to time the same commands beside it (before/after), with
# a check that both listings are the same bytes.
#
#   bench/decode_text.sh [--etmkit BIN] [--base BIN] [--runs N] [--jobs N]
#                        -- INPUT ARGS...
#     --etmkit BIN  the etmkit to time (default build/etmkit)
#     --base BIN    another etmkit timed beside it (e.g. a build of main)
#     --runs N      runs per command (default 3)
#     --jobs N      also time each form with --jobs N
#   INPUT ARGS: what selects the trace and the images, as given to
#   `etmkit decode` (a perf.data with --elf options, --snapshot DIR, ...);
#   `etmkit packets` gets them without the image options.
#
# Example (bench/README.md "Listing text"):
#   C=/tmp/perf-corpus
#   bench/decode_text.sh --jobs 2 -- $C/cal.data --elf $C/busy0.a64 ...
#   bench/decode_text.sh -- --snapshot ../shared/testdata/etmv3/TC2
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/etmkit base= runs=3 jobs=
while [ $# -gt 0 ]; do
	case $1 in
	--etmkit) bin=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "decode_text.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "decode_text.sh: no input (-- INPUT ARGS)" >&2; exit 2; }
dargs=("$@")
# packets takes no images: the same input without the image options
pargs=()
while [ $# -gt 0 ]; do
	case $1 in
	--elf|--image|--mem|--symfs|--vmlinux|--buildid-dir) shift 2 ;;
	*) pargs+=("$1"); shift ;;
	esac
done
set -- "${dargs[@]}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best of $runs: "wall cpu" of "$@" >/dev/null
best() {
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%e %U %S" -o "$tmp/t" "$@" >/dev/null 2>&1 || true
		tail -1 "$tmp/t"
	done | awk '{ c = $2 + $3; if (NR == 1 || $1 < w) w = $1;
		      if (NR == 1 || c < b) b = c }
		    END { printf "%.2f %.2f\n", w, b }'
}

printf '%-36s %10s %14s %14s\n' form "MB out" "wall/CPU s" "base wall/CPU"
for form in "decode" "decode --ranges" "decode --json" "decode --ranges --json" \
	"packets" "packets --json"; do
	for j in "" ${jobs:+"--jobs $jobs"}; do
		[[ $form == packets* && -n $j ]] && continue
		# shellcheck disable=SC2086
		if [[ $form == packets* ]]; then
			cmd=($form "${pargs[@]}")
		else
			cmd=($form "${dargs[@]}" $j)
		fi
		"$bin" "${cmd[@]}" 2>/dev/null | cksum >"$tmp/new" || true
		size=$(awk '{printf "%.1f", $2 / 1e6}' "$tmp/new")
		read -r w c < <(best "$bin" "${cmd[@]}")
		other=-
		if [ -n "$base" ]; then
			"$base" "${cmd[@]}" 2>/dev/null | cksum >"$tmp/old" || true
			cmp -s "$tmp/new" "$tmp/old" || { echo "MISMATCH: $form $j" >&2; exit 1; }
			read -r bw bc < <(best "$base" "${cmd[@]}")
			other="$bw/$bc"
		fi
		printf '%-36s %10s %14s %14s\n' "$form $j" "$size" "$w/$c" "$other"
	done
done
