#!/usr/bin/env bash
# bench/perf_corpus.sh: write a large perf.data from real program runs with
# `etmkit encode --format perf-data`, and measure etmkit's decode of it
# beside OpenCSD's on the same AUX buffers, in the same run (issue 15).
#
# The programs: tests/workloads/busy.c (qsort of libc, hashing, calls
# through pointers; ITER scales it), linked statically at its own text
# address per process, run under QEMU user mode (A64 for ETE and ETMv4,
# A32 for ETMv3). Their logs stream through named pipes into one `etmkit
# encode --format perf-data` (several processes on 2 CPUs, AUX records of
# --aux-size bytes), so no log is stored. A small calibration run gives
# the trace bytes per ITER; the big run is scaled to --mb.
#
# Then:
#   - bench_perf_decode: etmkit's and OpenCSD's full decode of the file's
#     AUX data (MB/s, instructions per second; the counts must agree), and
#     etmkit's profile of it;
#   - time and peak memory (maximum RSS, /usr/bin/time -v) of the encoder
#     writing the file, of `etmkit decode FILE.data --elf ... --stats` and
#     of `etmkit profile FILE.data --elf ... --format autofdo`.
#
#   bench/perf_corpus.sh [--mb N] [--protocol ete|etmv4|etmv3] [--procs N]
#                        [--out DIR] [--build DIR] [--runs N] [--reuse]
#     --mb N        MB of trace wanted (default 100)
#     --protocol P  default ete
#     --procs N     processes (default 4, on 2 CPUs)
#     --out DIR     where the file goes (default build/perf-corpus)
#     --build DIR   the build folder (default build)
#     --runs N      timed runs per decoder (default 3)
#     --reuse       keep a file already written in DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mb=100 proto=ete procs=4 out= build=$root/build runs=3 reuse=0
while [ $# -gt 0 ]; do
	case $1 in
	--mb) mb=$2; shift 2 ;;
	--protocol) proto=$2; shift 2 ;;
	--procs) procs=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--reuse) reuse=1; shift ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "perf_corpus.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
case $mb$procs in ''|*[!0-9]*) echo "perf_corpus.sh: --mb and --procs take whole numbers" >&2; exit 2 ;; esac
case $proto in
ete|etmv4) arch=a64 triplet=aarch64-linux-gnu qemu=qemu-aarch64 isaflag= ;;
etmv3) arch=a32 triplet=arm-linux-gnueabihf qemu=qemu-arm isaflag=-marm ;;
*) echo "perf_corpus.sh: --protocol takes ete, etmv4 or etmv3" >&2; exit 2 ;;
esac
out=${out:-$build/perf-corpus}
etmkit=$build/etmkit
bench=$build/bench/bench_perf_decode
[ -x "$etmkit" ] && [ -x "$bench" ] ||
	{ echo "perf_corpus.sh: build etmkit and bench_perf_decode first (cmake --build $build)" >&2; exit 2; }
for t in $qemu $triplet-gcc; do
	command -v $t >/dev/null || { echo "perf_corpus.sh: $t missing (tools/setup-debian)" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The programs: busy.c at 0x400000 + i * 0x400000 (a64) or 0x10000 +
# i * 0x400000 (a32), so a plain --elf per binary decodes them all.
elfs=() mems=()
for i in $(seq 0 $((procs - 1))); do
	first=0x10000; [ $arch = a64 ] && first=0x400000
	base=$(( first + i * 0x400000 ))
	bin=$out/busy$i.$arch
	$triplet-gcc -O2 $isaflag -static -Wl,-Ttext-segment=$(printf 0x%x $base) \
		-o "$bin" "$root/tests/workloads/busy.c"
	elfs+=(--elf "$bin")
	mems+=(--mem "$bin@$(printf 0x%x $base)")
done

# write ITER FILE: all processes under QEMU, logs through pipes, encoded.
write() {
	local iter=$1 file=$2 args=() pids=()
	for i in $(seq 0 $((procs - 1))); do
		local pipe=$out/q$i.fifo
		rm -f "$pipe"
		mkfifo "$pipe"
		ITER=$iter $qemu -d in_asm,exec,nochain -D "$pipe" \
			"$out/busy$i.$arch" >/dev/null 2>&1 &
		pids+=($!)
		args+=(--from-qemu "$pipe" --elf "$out/busy$i.$arch")
	done
	/usr/bin/time -v "$etmkit" encode "${args[@]}" --protocol "$proto" \
		--format perf-data -o "$file" --cpus 2 --aux-size 65536 \
		2> "$out/encode.time"
	for p in "${pids[@]}"; do wait "$p"; done
	rm -f "$out"/q*.fifo
}

rss() { awk -F': ' '/Maximum resident/ {print $2}' "$1"; }

file=$out/$proto.data
if [ $reuse = 0 ] || [ ! -f "$file" ]; then
	cal=4
	echo "perf_corpus.sh: calibration: $procs processes, ITER=$cal" >&2
	write $cal "$out/cal.data"
	per=$(( $(stat -c %s "$out/cal.data") / cal + 1 ))
	iter=$(( mb * 1000000 / per * 105 / 100 + 1 ))
	echo "perf_corpus.sh: ITER=$iter per process for $mb MB" >&2
	write $iter "$file"
	echo "encoder peak RSS: $(rss "$out/encode.time") KiB writing $(( $(stat -c %s "$file") / 1000000 )) MB"
fi
echo "== $proto perf.data: $(( $(stat -c %s "$file") / 1000000 )) MB, $procs processes (busy.c, $arch) on 2 CPUs"
"$bench" "$file" "${elfs[@]}" "${mems[@]}" --runs "$runs"
/usr/bin/time -v "$etmkit" decode "$file" "${elfs[@]}" --stats \
	> /dev/null 2> "$out/decode.time"
echo "etmkit decode --stats: $(awk -F': ' '/Elapsed/ {print $2}' "$out/decode.time") wall, peak RSS $(rss "$out/decode.time") KiB"
/usr/bin/time -v "$etmkit" profile "$file" "${elfs[@]}" --format autofdo \
	-o "$out/$proto.autofdo.txt" 2> "$out/profile.time"
echo "etmkit profile: $(awk -F': ' '/Elapsed/ {print $2}' "$out/profile.time") wall, $(( $(stat -c %s "$file") / 1000000 )) MB, peak RSS $(rss "$out/profile.time") KiB"
