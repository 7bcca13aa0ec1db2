/* Names of ETMv2 statuses, packet record types and TFO reasons. */
#include "etmkit/etm2.h"

const char *etm2_status_name(unsigned status)
{
	static const char *const names[etm2_st_count] = {
		"IE", "DE", "IN", "DN", "WT", "DW", "TR", "TD",
		"PTIE", "PTDE", "PTIN", "PTDN", "PNIE", "PNDE", "PNIN", "PNDN",
		"ID", "BE", "BD",
	};

	return status < etm2_st_count ? names[status] : "invalid";
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
