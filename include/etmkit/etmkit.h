/* etmkit: ARM embedded trace decoder. One include for the whole public API.
 *
 * Layers (the trace-element model of ETE, applied to every protocol):
 *   transport.h  CoreSight formatter frames, TPIU syncs, demultiplexing by ID
 *   etm3.h       ETMv3 packets
 *   session.h    a capture wired through the layers: bytes in, packets out
 *   snapshot.h   the trace snapshot directory format
 * Errors, versions and shared types are in common.h.
 */
#ifndef ETMKIT_ETMKIT_H
#define ETMKIT_ETMKIT_H

#include "etmkit/common.h"
#include "etmkit/transport.h"
#include "etmkit/etm3.h"
#include "etmkit/session.h"
#include "etmkit/snapshot.h"

#endif /* ETMKIT_ETMKIT_H */
