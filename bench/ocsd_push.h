/* bench: pushing a buffer through an OpenCSD decode tree (C API), shared
 * by the peers. */
#ifndef ETMKIT_BENCH_OCSD_PUSH_H
#define ETMKIT_BENCH_OCSD_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include <opencsd/c_api/opencsd_c_api.h>

/* Push @buf[0..n) through @tree, then end of trace. A WAIT response means a
 * sink asked to pause: the API wants OCSD_OP_FLUSH until it answers CONT,
 * then the data resumes where it stopped. Returns 0, or -1 after a message
 * on stderr prefixed with @who. */
int ocsd_push(dcd_tree_handle_t tree, const uint8_t *buf, size_t n,
	      const char *who);

#endif
