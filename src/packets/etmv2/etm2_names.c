/* Names of ETMv2 statuses, packet types and TFO reasons. */
#include <string.h>

#include "packets/etmv2/etm2_names.h"

static const char *const status_names[etm2_st_count] = {
	[etm2_st_ie] = "IE", [etm2_st_de] = "DE", [etm2_st_in] = "IN",
	[etm2_st_dn] = "DN", [etm2_st_wt] = "WT", [etm2_st_dw] = "DW",
	[etm2_st_tr] = "TR", [etm2_st_td] = "TD",
	[etm2_st_ptie] = "PTIE", [etm2_st_ptde] = "PTDE",
	[etm2_st_ptin] = "PTIN", [etm2_st_ptdn] = "PTDN",
	[etm2_st_pnie] = "PNIE", [etm2_st_pnde] = "PNDE",
	[etm2_st_pnin] = "PNIN", [etm2_st_pndn] = "PNDN",
	[etm2_st_id] = "ID", [etm2_st_be] = "BE", [etm2_st_bd] = "BD",
};

const char *etm2_status_name(unsigned status)
{
	return status < etm2_st_count ? status_names[status] : "invalid";
}

int etm2_status_lookup(const char *name, size_t len)
{
	for (unsigned s = 0; s < etm2_st_count; s++)
		if (strlen(status_names[s]) == len &&
		    memcmp(status_names[s], name, len) == 0)
			return (int)s;
	return -1;
}

const char *etm2_pkt_type_name(unsigned type)
{
	static const char *const names[etm2_pkt_type_count] = {
		[etm2_pkt_unsynced] = "unsynced",
		[etm2_pkt_tfo] = "tfo",
		[etm2_pkt_status] = "status",
		[etm2_pkt_wait] = "wait",
		[etm2_pkt_trigger] = "trigger",
		[etm2_pkt_branch_address] = "branch_address",
		[etm2_pkt_normal_data] = "normal_data",
		[etm2_pkt_value_not_traced] = "value_not_traced",
		[etm2_pkt_load_miss] = "load_miss",
		[etm2_pkt_load_miss_data] = "load_miss_data",
		[etm2_pkt_context_id] = "context_id",
		[etm2_pkt_reserved] = "reserved",
	};

	return type < etm2_pkt_type_count ? names[type] : "invalid";
}

const char *etm2_reason_name(unsigned reason)
{
	/* Q Table 6.7 */
	static const char *const names[4] = { "periodic", "trace_on",
					      "overflow", "debug_exit" };
	return reason < 4 ? names[reason] : "invalid";
}

const char *etm2_vector_name(unsigned number)
{
	/* The ARM exception vectors 0x00 to 0x1C (ARM DDI 0100I A2.6). */
	static const char *const names[8] = {
		"reset", "undefined_instruction", "svc", "prefetch_abort",
		"data_abort", "reserved_5", "irq", "fiq",
	};

	if (number == 0xffff)
		return "not_a_vector";
	return number < 8 ? names[number] : "invalid";
}
