/* etmkit: ARM embedded trace decoder. One include for the whole public API.
 *
 * Layer: none of its own; it includes every layer's header. The layers
 * follow the trace-element model of ETE, applied to every protocol, each
 * in its folder src/<layer>/. The public headers, by layer:
 * common
 *   common.h      error codes, version, conventions shared by every layer
 * transport
 *   transport.h   CoreSight formatter frames, TPIU syncs, demultiplexing by ID
 * packets
 *   etm3.h        ETMv3 packets (and the ETMv3 encoder, encode layer)
 *   etm4.h        ETMv4 and ETE packets (and the ETE encoder, encode layer)
 *   ptm.h         PTM (PFTv1.0, PFTv1.1) packets
 *   etm2.h        ETMv2 and ETMv1 captures and packets (and their encoder)
 * isa
 *   insn.h        instruction classes: A32, T32, ThumbEE, Jazelle, A64
 * image
 *   image.h       program images: raw dumps, ELF files, snapshot dumps
 *   elf_file.h    an ELF file's build id, segments and function symbols
 *   locate.h      address -> binary, ELF virtual address, function
 *   lines.h       source lines and inlined calls from an ELF file's DWARF
 * flow
 *   elem.h        execution elements: instructions and events
 *   flow.h        flow decoders: trace + image -> elements
 *   blocks.h      blocks (instruction ranges) and their instructions
 * parallel
 *   parallel.h    one source decoded in pieces on threads, as the serial decode
 * session
 *   session.h     a capture's bytes in, packets or elements out
 * snapshot
 *   snapshot.h    the trace snapshot directory format
 * perf
 *   perf.h        perf.data reader: records, cs_etm metadata, AUX trace
 *   perf_maps.h   perf.data side-band: processes, mapped binaries, images
 *   perf_write.h  perf.data writer, as Linux perf writes CoreSight trace
 * profile
 *   profile.h     execution profiles for AutoFDO, BOLT and llvm-profgen
 *   coverage.h    code coverage: instruction counts, branch outcomes
 *   stacks.h      call stacks: folded stacks for flame graphs, activations
 *   profile_part.h  partial profiles that merge, saved and loaded
 * encode
 *   exec.h        execution records, the encoders' input (text format)
 *   qemu_log.h    execution records from QEMU user-mode logs
 */
#ifndef ETMKIT_ETMKIT_H
#define ETMKIT_ETMKIT_H

#include "etmkit/common.h"
#include "etmkit/transport.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/ptm.h"
#include "etmkit/etm2.h"
#include "etmkit/exec.h"
#include "etmkit/qemu_log.h"
#include "etmkit/session.h"
#include "etmkit/snapshot.h"
#include "etmkit/image.h"
#include "etmkit/elf_file.h"
#include "etmkit/locate.h"
#include "etmkit/insn.h"
#include "etmkit/elem.h"
#include "etmkit/flow.h"
#include "etmkit/blocks.h"
#include "etmkit/parallel.h"
#include "etmkit/perf.h"
#include "etmkit/perf_maps.h"
#include "etmkit/perf_write.h"
#include "etmkit/profile.h"
#include "etmkit/lines.h"
#include "etmkit/coverage.h"
#include "etmkit/stacks.h"
#include "etmkit/profile_part.h"

#endif /* ETMKIT_ETMKIT_H */
