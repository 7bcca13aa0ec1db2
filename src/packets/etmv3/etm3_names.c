/* Names of ETMv3 packet types, reasons, exceptions and atoms. */
#include "etmkit/etm3.h"

const char *etm3_pkt_type_name(enum etm3_pkt_type type)
{
	static const char *const names[etm3_pkt_type_count] = {
		[etm3_pkt_unsynced] = "unsynced",
		[etm3_pkt_a_sync] = "a_sync",
		[etm3_pkt_p_header] = "p_header",
		[etm3_pkt_cycle_count] = "cycle_count",
		[etm3_pkt_i_sync] = "i_sync",
		[etm3_pkt_i_sync_cycle] = "i_sync_cycle",
		[etm3_pkt_branch_address] = "branch_address",
		[etm3_pkt_trigger] = "trigger",
		[etm3_pkt_context_id] = "context_id",
		[etm3_pkt_vmid] = "vmid",
		[etm3_pkt_timestamp] = "timestamp",
		[etm3_pkt_exception_entry] = "exception_entry",
		[etm3_pkt_exception_exit] = "exception_exit",
		[etm3_pkt_ignore] = "ignore",
		[etm3_pkt_normal_data] = "normal_data",
		[etm3_pkt_ooo_placeholder] = "ooo_placeholder",
		[etm3_pkt_ooo_data] = "ooo_data",
		[etm3_pkt_value_not_traced] = "value_not_traced",
		[etm3_pkt_data_suppressed] = "data_suppressed",
		[etm3_pkt_store_failed] = "store_failed",
		[etm3_pkt_reserved] = "reserved",
		[etm3_pkt_p_header_run] = "p_header_run",
	};

	if ((unsigned)type >= etm3_pkt_type_count)
		return "invalid";
	return names[type];
}

const char *etm3_reason_name(unsigned reason)
{
	/* IHI 0014Q Table 7.21 */
	static const char *const names[4] = { "periodic", "trace_on",
					      "overflow", "debug_exit" };
	return reason < 4 ? names[reason] : "invalid";
}

/* ARMv7-A/R exception numbers, IHI 0014Q Table 7-12. */
static const char *exception_ar(unsigned n)
{
	static const char *const names[16] = {
		"none", "halting_debug", "secure_monitor_call", "hyp_trap",
		"async_data_abort", "jazelle_thumbee_check", "reserved_6",
		"reserved_7", "reset", "undefined_instruction", "svc",
		"prefetch_abort", "data_abort", "generic", "irq", "fiq",
	};
	return n < 16 ? names[n] : "invalid";
}

/* ARMv7-M exception numbers, IHI 0014Q Table 7-11. */
static const char *exception_m(unsigned n)
{
	static const char *const low[24] = {
		"none", "irq1", "irq2", "irq3", "irq4", "irq5", "irq6", "irq7",
		"irq0", "usage_fault", "nmi", "svc", "debug_monitor",
		"mem_manage", "pendsv", "systick", "reserved_16", "reset",
		"reserved_18", "hard_fault", "reserved_20", "bus_fault",
		"reserved_22", "reserved_23",
	};
	if (n < 24)
		return low[n];
	return n < 512 ? "irq_n" : "invalid"; /* IRQ(n - 16) */
}

const char *etm3_legacy_exception_name(unsigned code)
{
	static const char *const names[8] = {
		"reset", "irq", "reserved_2", "reserved_3", "jazelle", "fiq",
		"async_data_abort", "debug_halt",
	};
	return code < 8 ? names[code] : "invalid";
}

const char *etm3_exception_name(unsigned number, int m_profile)
{
	return m_profile ? exception_m(number) : exception_ar(number);
}

char *etm3_atoms_string(const struct etm3_atoms *atoms, char *buf)
{
	static const char letters[4] = { 'E', 'N', 'W', '?' };
	unsigned i, n = atoms->count > 16 ? 16 : atoms->count;

	for (i = 0; i < n; i++)
		buf[i] = letters[(atoms->bits >> (2 * i)) & 3];
	buf[i] = '\0';
	return buf;
}
