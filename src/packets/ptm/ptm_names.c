/* Names of PTM packet types, I-sync reasons, exceptions and atoms. */
#include "etmkit/ptm.h"

const char *ptm_pkt_type_name(enum ptm_pkt_type type)
{
	static const char *const names[ptm_pkt_type_count] = {
		[ptm_pkt_unsynced] = "unsynced",
		[ptm_pkt_a_sync] = "a_sync",
		[ptm_pkt_i_sync] = "i_sync",
		[ptm_pkt_atom] = "atom",
		[ptm_pkt_branch_address] = "branch_address",
		[ptm_pkt_waypoint_update] = "waypoint_update",
		[ptm_pkt_trigger] = "trigger",
		[ptm_pkt_context_id] = "context_id",
		[ptm_pkt_vmid] = "vmid",
		[ptm_pkt_timestamp] = "timestamp",
		[ptm_pkt_exception_return] = "exception_return",
		[ptm_pkt_ignore] = "ignore",
		[ptm_pkt_reserved] = "reserved",
	};

	if ((unsigned)type >= ptm_pkt_type_count)
		return "invalid";
	return names[type];
}

const char *ptm_reason_name(unsigned reason)
{
	/* IHI 0035B 4.5.2 */
	static const char *const names[4] = { "periodic", "trace_on",
					      "overflow", "debug_exit" };
	return reason < 4 ? names[reason] : "invalid";
}

const char *ptm_exception_name(unsigned number)
{
	/* Digest ptm.md 4.4; IHI 0035B Table 5.6. */
	static const char *const names[16] = {
		"none", "halting_debug", "secure_monitor_call", "hyp_trap",
		"async_data_abort", "thumbee_check_fail", "reserved_6",
		"reserved_7", "reset", "undefined_instruction", "svc",
		"prefetch_abort", "data_abort", "generic", "irq", "fiq",
	};
	return number < 16 ? names[number] : "invalid";
}

char *ptm_atoms_string(const struct ptm_atoms *atoms, char *buf)
{
	unsigned i, n = atoms->count > 5 ? 5 : atoms->count;

	for (i = 0; i < n; i++)
		buf[i] = (atoms->bits >> i) & 1 ? 'N' : 'E';
	buf[i] = '\0';
	return buf;
}
