/* Names of element kinds, losses and trace-on reasons, as etmkit's output
 * writes them. */
#include "etmkit/elem.h"

const char *etmkit_elem_kind_name(unsigned kind)
{
	static const char *const names[etmkit_elem_kind_count] = {
		[etmkit_elem_none] = "none",
		[etmkit_elem_insn] = "insn",
		[etmkit_elem_insn_range] = "insn_range",
		[etmkit_elem_trace_on] = "trace_on",
		[etmkit_elem_context] = "context",
		[etmkit_elem_exception] = "exception",
		[etmkit_elem_exception_return] = "exception_return",
		[etmkit_elem_exception_entry] = "exception_entry",
		[etmkit_elem_timestamp] = "timestamp",
		[etmkit_elem_cycle_count] = "cycle_count",
		[etmkit_elem_data] = "data",
		[etmkit_elem_gap] = "gap",
		[etmkit_elem_no_image] = "no_image",
		[etmkit_elem_overflow] = "overflow",
		[etmkit_elem_trigger] = "trigger",
		[etmkit_elem_event] = "event",
		[etmkit_elem_instrumentation] = "instrumentation",
		[etmkit_elem_transaction] = "transaction",
		[etmkit_elem_ts_marker] = "ts_marker",
		[etmkit_elem_q] = "q",
		[etmkit_elem_branch_run] = "branch_run",
	};

	return kind < etmkit_elem_kind_count ? names[kind] : "invalid";
}

const char *etmkit_loss_name(unsigned reason)
{
	static const char *const names[etmkit_loss_count] = {
		[etmkit_loss_none] = "none",
		[etmkit_loss_packet] = "packet_error",
		[etmkit_loss_transport] = "transport",
		[etmkit_loss_truncated] = "truncated",
		[etmkit_loss_no_address] = "no_address",
		[etmkit_loss_unmapped] = "unmapped",
		[etmkit_loss_cut] = "cut",
		[etmkit_loss_misaligned] = "misaligned",
		[etmkit_loss_aux_truncated] = "aux_truncated",
		[etmkit_loss_aux_partial] = "aux_partial",
		[etmkit_loss_aux_collision] = "aux_collision",
		[etmkit_loss_aux_overwrite] = "aux_overwrite",
		[etmkit_loss_aux_missing] = "aux_missing",
		[etmkit_loss_mismatch] = "mismatch",
	};

	return reason < etmkit_loss_count ? names[reason] : "invalid";
}

const char *etmkit_trace_on_reason_name(unsigned reason)
{
	/* IHI 0014Q Table 7.21 */
	static const char *const names[4] = { "periodic", "trace_enable",
					      "overflow", "debug_exit" };

	return reason < 4 ? names[reason] : "invalid";
}

const char *etmkit_sec_name(unsigned sec)
{
	static const char *const names[4] = { "secure", "nonsecure", "root",
					      "realm" };

	return sec < 4 ? names[sec] : "invalid";
}

const char *etmkit_txn_name(unsigned what)
{
	static const char *const names[3] = { "start", "commit", "fail" };

	return what < 3 ? names[what] : "invalid";
}
