/* etmkit: ARM embedded trace decoder. One include for the whole public API.
 *
 * Layers (the trace-element model of ETE, applied to every protocol):
 *   transport.h  CoreSight formatter frames, TPIU syncs, demultiplexing by ID
 *   etm3.h       ETMv3 packets
 *   image.h      program images: raw dumps, ELF files, snapshot dumps
 *   elf_file.h   an ELF file's build id, segments and function symbols
 *   locate.h     address -> binary, ELF virtual address, function
 *   insn.h       instruction classification (A32, T32, ThumbEE, Jazelle)
 *   elem.h       execution elements: instructions and events
 *   flow.h       flow decoders: trace + image -> elements
 *   session.h    a capture wired through the layers: bytes in, packets or
 *                elements out
 *   snapshot.h   the trace snapshot directory format
 * Errors, versions and shared types are in common.h.
 */
#ifndef ETMKIT_ETMKIT_H
#define ETMKIT_ETMKIT_H

#include "etmkit/common.h"
#include "etmkit/transport.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
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
#include "etmkit/perf.h"
#include "etmkit/perf_write.h"
#include "etmkit/profile.h"
#include "etmkit/lines.h"
#include "etmkit/coverage.h"
#include "etmkit/stacks.h"

#endif /* ETMKIT_ETMKIT_H */
