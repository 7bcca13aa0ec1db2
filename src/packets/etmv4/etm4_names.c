/* Names of ETMv4 / ETE packet types: the enum names without "etm4_pkt_". */
#include "etmkit/etm4.h"

const char *etm4_pkt_type_name(enum etm4_pkt_type type)
{
	static const char *const names[etm4_pkt_type_count] = {
		[etm4_pkt_unsynced] = "unsynced",
		[etm4_pkt_a_sync] = "a_sync",
		[etm4_pkt_trace_info] = "trace_info",
		[etm4_pkt_trace_on] = "trace_on",
		[etm4_pkt_timestamp] = "timestamp",
		[etm4_pkt_ts_marker] = "ts_marker",
		[etm4_pkt_exception] = "exception",
		[etm4_pkt_exception_return] = "exception_return",
		[etm4_pkt_function_return] = "function_return",
		[etm4_pkt_cycle_count] = "cycle_count",
		[etm4_pkt_commit] = "commit",
		[etm4_pkt_cancel] = "cancel",
		[etm4_pkt_mispredict] = "mispredict",
		[etm4_pkt_discard] = "discard",
		[etm4_pkt_overflow] = "overflow",
		[etm4_pkt_atom] = "atom",
		[etm4_pkt_q] = "q",
		[etm4_pkt_context] = "context",
		[etm4_pkt_address] = "address",
		[etm4_pkt_address_context] = "address_context",
		[etm4_pkt_source_address] = "source_address",
		[etm4_pkt_event] = "event",
		[etm4_pkt_instrumentation] = "instrumentation",
		[etm4_pkt_transaction_start] = "transaction_start",
		[etm4_pkt_transaction_commit] = "transaction_commit",
		[etm4_pkt_ignore] = "ignore",
		[etm4_pkt_cond_instr] = "cond_instr",
		[etm4_pkt_cond_result] = "cond_result",
		[etm4_pkt_cond_flush] = "cond_flush",
		[etm4_pkt_data_sync] = "data_sync",
		[etm4_pkt_reserved] = "reserved",
		[etm4_pkt_atom_run] = "atom_run",
	};

	if ((unsigned)type >= etm4_pkt_type_count || !names[type])
		return "invalid";
	return names[type];
}

/* Exception packet types, digest spec/etmv4-ete.md 5.5 (IHI 0064
 * "Exception packet"; Arm ARM D4.3.5.2, Tables D4-4 and D4-5). 0x10-0x17:
 * no architected name, IMPLEMENTATION DEFINED occurrences (D4.3.5.2). */
const char *etm4_exception_name(unsigned type, int ete)
{
	static const char *const names[0x10] = {
		"pe_reset", "debug_halt", "call", "trap", "system_error",
		"reserved_5", "instruction_debug", "data_debug", "reserved_8",
		"reserved_9", "alignment", "instruction_fault", "data_fault",
		"reserved_13", "irq", "fiq"
	};

	if (type < 0x10)
		return names[type];
	if (type < 0x18)
		return "impdef";
	/* ETE (FEAT_TME): a transaction failure, traced as an exception
	 * (digest 5.5, 5.23). */
	if (type == 0x18 && ete)
		return "transaction_failure";
	return "reserved";
}
