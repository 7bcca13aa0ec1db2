/* bench: pushing a buffer through an OpenCSD decode tree (ocsd_push.h). */
#include "ocsd_push.h"

#include <stdio.h>

static int fatal(const char *who, const char *what, ocsd_datapath_resp_t resp)
{
	fprintf(stderr, "%s: %s: fatal datapath response %d\n", who, what,
		(int)resp);
	return -1;
}

int ocsd_push(dcd_tree_handle_t tree, const uint8_t *buf, size_t n,
	      const char *who)
{
	ocsd_datapath_resp_t resp = OCSD_RESP_CONT;
	size_t done = 0;

	while (done < n) {
		if (OCSD_DATA_RESP_IS_WAIT(resp)) {
			resp = ocsd_dt_process_data(tree, OCSD_OP_FLUSH, 0, 0,
						    NULL, NULL);
		} else {
			/* The API takes 32-bit block sizes. */
			size_t left = n - done;
			uint32_t block = left > 0x40000000u ? 0x40000000u
							    : (uint32_t)left;
			uint32_t used = 0;

			resp = ocsd_dt_process_data(tree, OCSD_OP_DATA,
						    (ocsd_trc_index_t)done,
						    block, buf + done, &used);
			done += used;
			if (used == 0 && OCSD_DATA_RESP_IS_CONT(resp)) {
				fprintf(stderr, "%s: no progress at byte %zu\n",
					who, done);
				return -1;
			}
		}
		if (OCSD_DATA_RESP_IS_FATAL(resp))
			return fatal(who, "process data", resp);
	}
	while (OCSD_DATA_RESP_IS_WAIT(resp)) {
		resp = ocsd_dt_process_data(tree, OCSD_OP_FLUSH, 0, 0, NULL,
					    NULL);
		if (OCSD_DATA_RESP_IS_FATAL(resp))
			return fatal(who, "flush", resp);
	}
	resp = ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	if (OCSD_DATA_RESP_IS_FATAL(resp))
		return fatal(who, "end of trace", resp);
	return 0;
}
