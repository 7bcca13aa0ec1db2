#!/usr/bin/env bash
# bench/corpus.sh: build large ETMv3 and ETE trace corpora from real program
# runs and measure etmkit against libopencsd on them.
#
# A corpus is Debian's xz (xz-utils, arm64 for ETE, armhf for ETMv3; its
# code is mostly T32) compressing deterministic text under QEMU user mode,
# its log streamed through a pipe into `etmkit encode --from-qemu`
# (tools/qemu-trace --fifo), so no log is ever stored. The input size sets
# the trace size; --mb gives the size wanted and the script scales the
# input from a first, small run. Each corpus is a snapshot directory
# (bench/README.md); nothing is committed.
#
# Then, per corpus:
#   - bench_corpus: etmkit's and OpenCSD's full decode from memory, in turn:
#     MB/s, instructions per second, decoder heap;
#   - peak memory (maximum RSS) of `etmkit decode --snapshot DIR --stats`,
#     which streams the trace from the file, on the corpus and on the small
#     calibration corpus: it must not grow with the trace.
#
#   bench/corpus.sh [--mb N] [--out DIR] [--build DIR] [--runs N]
#                   [--only etmv3|ete] [--reuse]
#     --mb N      MB of trace per corpus (default 100)
#     --out DIR   where the corpora go (default build/corpus)
#     --build DIR the build folder with etmkit and bench_corpus (default build)
#     --runs N    timed runs per decoder (default 3)
#     --only P    one protocol
#     --reuse     keep corpora already built in DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mb=100 out= build=$root/build runs=3 only= reuse=0
while [ $# -gt 0 ]; do
	case $1 in
	--mb) mb=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--reuse) reuse=1; shift ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "corpus.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
case $mb in ''|*[!0-9]*) echo "corpus.sh: --mb takes a whole number" >&2; exit 2 ;; esac
out=${out:-$build/corpus}
etmkit=$build/etmkit
bench=$build/bench/bench_corpus
[ -x "$etmkit" ] && [ -x "$bench" ] ||
	{ echo "corpus.sh: build etmkit and bench_corpus first (cmake --build $build)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Deterministic text: words of a fixed random vocabulary.
text() { # $1: bytes, $2: file
	python3 - "$1" "$2" <<'EOF'
import random, sys
n, path = int(sys.argv[1]), sys.argv[2]
r = random.Random(1)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz")
                 for _ in range(r.randint(2, 9))) for _ in range(3000)]
with open(path, "w") as f:
    done = 0
    while done < n:
        line = " ".join(r.choice(words) for _ in range(r.randint(4, 14))) + "\n"
        f.write(line)
        done += len(line)
EOF
}

# Peak RSS in KiB of a command (its output discarded).
peak_kib() {
	python3 - "$@" <<'EOF'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
}

# build PROTO ARCH INPUT_BYTES DIR: one xz run, encoded.
build_one() {
	local proto=$1 arch=$2 bytes=$3 dir=$4
	rm -rf "$dir"
	mkdir -p "$dir"
	text "$bytes" "$dir/input.txt"
	"$root/tools/qemu-trace" --arch "$arch" --deb "xz-utils liblzma5" \
		--bin usr/bin/xz --out "$dir" --stdin "$dir/input.txt" --fifo \
		--etmkit "$etmkit" --protocol "$proto" -- -6 -c >&2
	rm -f "$dir/input.txt" "$dir/stdout"
}

trace_bytes() { stat -c %s "$1/trace/trace.bin"; }

corpus() { # PROTO ARCH
	local proto=$1 arch=$2 small=$out/$1-small big=$out/$1
	local cal=65536
	if [ $reuse = 0 ] || [ ! -f "$small/trace/trace.bin" ]; then
		echo "corpus.sh: $proto: calibration run, $cal bytes of input" >&2
		build_one "$proto" "$arch" $cal "$small"
	fi
	local per=$(( $(trace_bytes "$small") / cal + 1 ))
	local want=$(( mb * 1000000 / per * 105 / 100 ))
	if [ $reuse = 0 ] || [ ! -f "$big/trace/trace.bin" ]; then
		echo "corpus.sh: $proto: $want bytes of input for $mb MB of trace" >&2
		build_one "$proto" "$arch" $want "$big"
	fi
	echo "== $proto corpus: $(( $(trace_bytes "$big") / 1000000 )) MB of trace (xz -6 of $want bytes, $arch, QEMU block log)"
	"$bench" --snapshot "$big/trace" --runs "$runs"
	echo "corpus  peak RSS of 'etmkit decode --stats': $(peak_kib "$etmkit" decode --snapshot "$big/trace" --stats) KiB on $(( $(trace_bytes "$big") / 1000000 )) MB, $(peak_kib "$etmkit" decode --snapshot "$small/trace" --stats) KiB on $(( $(trace_bytes "$small") / 1000 )) kB"
}

[ -z "$only" ] || [ "$only" = etmv3 ] || [ "$only" = ete ] ||
	{ echo "corpus.sh: --only takes etmv3 or ete" >&2; exit 2; }
[ "$only" = ete ] || corpus etmv3 a32
[ "$only" = etmv3 ] || corpus ete a64
