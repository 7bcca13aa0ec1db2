/* etmkit: execution profiles built from decoded trace.
 *
 * Layer: profile (src/profile/), above flow: consumes elements.
 *
 * A profile counts what the trace says the cores ran: straight-line
 * ranges of instructions and the taken branches between them, per binary,
 * at the binaries' ELF virtual addresses. It consumes the execution
 * elements of a session (elem.h), trace ID by trace ID, and several
 * inputs and trace IDs add into one profile. Writers turn it into the
 * text formats profile-guided optimisers read (AutoFDO: digest
 * perf-data.md 4a; with cfg.traces, taken-branch traces for BOLT and
 * llvm-profgen: 4c, 4d, "Taken-branch traces" below).
 *
 *   struct profile_config cfg;
 *   profile_config_init(&cfg);
 *   cfg.resolve = my_resolve;  cfg.ctx = ...;   address -> binary, vaddr
 *   struct profile *p;
 *   profile_alloc(&p, &cfg);
 *   profile_elem(p, id, e);              for every element (on_elem)
 *     (or profile_elems(p, id, e, n);    a batch of them, on_elems)
 *   profile_finish(p);                   at the end of each input
 *   profile_write_autofdo(p, f, bins, nbins);
 *   profile_free(p);
 *
 * How ranges and branches are formed (as simpleperf's inject does from
 * OpenCSD instruction ranges, digest 4a): a range runs from a first
 * instruction to the next P0 or branch instruction, taken or not, which
 * it includes; every range counts 1 (an insn_range element with
 * u.range.repeats, ETM4_FLOW_TALLY: repeats + 1, and it is a whole range
 * by itself). When that last instruction is a taken branch, a branch line
 * from it counts 1: for a direct branch to its decoded target, at the
 * ELF address the binary that holds the target has for it (the start of
 * the range that runs next, where simpleperf takes it from, whenever the
 * image holds what ran: docs/perf-data.md "Profiles"), or, when no
 * binary holds it, at the decoded address in the branch's own binary
 * (simpleperf's provisional target); for an indirect one (BR, BLR, RET)
 * to 0: the target is not recorded. A trace_on, gap, no_image, overflow,
 * exception or Q element, an address no binary holds, and
 * profile_finish() end the range being built.
 *
 * Counts saturate at UINT64_MAX (profile_saturated() says so). Memory
 * grows with the distinct ranges and branches only: nothing is allocated
 * per element once they are known.
 */
#ifndef ETMKIT_PROFILE_H
#define ETMKIT_PROFILE_H

#include <stdio.h>

#include "etmkit/common.h"
#include "etmkit/elem.h"
#include "etmkit/locate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a run-time address belongs (profile_resolve_fn). */
struct profile_where {
	size_t bin;        /* the binary: any number the caller chooses, the
			      same for one binary */
	uint64_t vaddr;    /* the address's ELF virtual address there */
	uint64_t lo, hi;   /* optional (lo == hi: none): the run-time
			      addresses [lo, hi) around it that map to the
			      same binary at the same offset (vaddr - addr),
			      until the next context element of the trace
			      ID: the profile then resolves them itself */
};

/* Where run-time address @addr of trace ID @id belongs: fill @w (zeroed
 * before the call). Returns 0, or -etmkit_err_not_found when no binary
 * holds it (the range is dropped, as simpleperf drops ranges outside
 * known maps). Any other negative value stops profile_elem(), which
 * returns it. */
typedef int (*profile_resolve_fn)(void *ctx, uint8_t id, uint64_t addr,
				  struct profile_where *w);

/* A resolver's answer from an address locator (locate.h): @addr, read
 * from image @img in memory space @space, is in binary
 * locate_binary_at(@l, w->bin) at ELF address w->vaddr, over the stretch
 * locate_find_binary() gives (w->lo, w->hi). Fills @w (zeroed by the
 * caller, as for profile_resolve_fn). Returns 0; -etmkit_err_not_found
 * when no binary holds it, or when its file offset has no ELF address
 * (not a binary's code, as for simpleperf); -etmkit_err_invalid. */
int profile_where_locate(const struct locate *l, const struct image *img,
			 uint8_t space, uint64_t addr,
			 struct profile_where *w);

struct profile_config {
	size_t size;               /* sizeof(struct profile_config) */
	profile_resolve_fn resolve;
	void *ctx;                 /* for resolve */
	int traces;                /* count taken-branch traces (below), for
				      profile_write_bolt() and
				      profile_write_profgen(), instead of
				      AutoFDO's ranges */
	int contexts;              /* with traces: count them per call
				      context ("Call contexts" below), for
				      profile_write_profgen() */
};

void profile_config_init(struct profile_config *cfg);

struct profile;

/* Taken-branch traces (cfg.traces; digest perf-data.md 4c, 4d): how
 * LBR-based tools (perf2bolt, llvm-profgen) see execution. A range (a
 * fall-through) runs from where execution arrived by a taken branch, or
 * from the start of the trace or a cut, to the source of the next TAKEN
 * branch, which it includes: it goes on across not-taken branches and
 * across the end of an element whose next instruction is the next
 * element's first. A taken branch from->to counts with its real target,
 * indirect ones (BR, BLR, RET, ERET) included: the first instruction of
 * the element that follows it, when no cut comes between. A cut is a
 * trace_on, gap, no_image, overflow, exception, exception_entry or Q
 * element, an element that does not start where the one before went
 * on, and profile_finish(): the range being built ends at the last
 * instruction before it, and a taken branch before it counts no branch
 * (an exception is no branch edge: the handler's first range starts a
 * range of its own). A range counts in the binary of its first
 * instruction, its end at the same offset there; a branch counts only
 * when its source and target are in the same binary (a call into a
 * shared library, a return out of it: the ranges count, not the branch).
 * The elements must come in execution order: an insn_range element with
 * u.range.repeats (ETM4_FLOW_TALLY, which reorders ranges) makes
 * profile_elem() return -etmkit_err_unsupported; decode without it. The
 * decoder may count the traces itself (ETM4_FLOW_TRACES, flow.h): a
 * branch_run element is repeats + 1 traces, each a range and its branch
 * to u.brun.target; its first goes on from the range being built when it
 * starts where that one ends, and is where the branch before went. Not
 * with cfg.contexts (-etmkit_err_unsupported): the order of calls and
 * returns is lost; nor without cfg.traces (the same error: AutoFDO's
 * ranges end at every branch). */

/* Call contexts (cfg.contexts, with cfg.traces; llvm-profgen's
 * context-sensitive profile, digest perf-data.md 4d, docs/perf-data.md
 * "Profiles"): every range and taken branch counts in the call context
 * that ran it: the call instructions of the calls not yet returned, at
 * their ELF addresses, root first, followed per trace ID and thread (the
 * context ID, when traced). A taken call (INSN_F_CALL) enters a context
 * after the range it ends (that range and its branch count in the
 * caller's context); a taken return (INSN_F_RETURN, not an exception
 * return) leaves one, and a return past the calls seen leaves the empty
 * context (the calls before the trace are not known). Every cut (above)
 * forgets the context: after a trace_on, gap, overflow, exception...
 * the code runs in the empty context until its calls are seen. A call
 * whose instruction no binary holds enters a context that has no
 * address there (the writer starts the context after it). At most
 * PROFILE_CTX_MAX_DEPTH (1024) calls are kept; deeper calls and their
 * returns are counted, not kept, until they balance. Contexts are the
 * nodes of a call-site tree, interned: memory grows with the distinct
 * contexts times the ranges that run in them, nothing per element once
 * they are known. A
 * context element naming another thread ends the range being built (a
 * taken branch before it counts no branch) and takes up that thread's
 * context (the empty one for a thread not seen before). */

/* Returns 0 and sets *@p; -etmkit_err_invalid (NULL argument, bad size,
 * no resolve, contexts without traces), -etmkit_err_nomem. */
int profile_alloc(struct profile **p, const struct profile_config *cfg);
void profile_free(struct profile *p);

/* Count element @e of trace ID @id (0-127). Returns 0, -etmkit_err_nomem
 * (a new range or branch found no room; the profile stays usable and
 * misses that one), -etmkit_err_invalid (NULL argument, @id above 127),
 * -etmkit_err_unsupported (traces: a tallied range, above), or the
 * resolver's error. */
int profile_elem(struct profile *p, uint8_t id, const struct etmkit_elem *e);

/* Count elements @e[0..@n-1] of trace ID @id in order (a session's
 * on_elems batch), with the arguments checked once: the same as
 * profile_elem() on each element in turn, each counted whatever the one
 * before returned. Returns 0, the first error of an element (as
 * profile_elem()), or -etmkit_err_invalid (NULL @p, NULL @e with @n > 0,
 * @id above 127: nothing counted). */
int profile_elems(struct profile *p, uint8_t id, const struct etmkit_elem *e,
		  size_t n);

/* End of an input (or of the trace of every ID): the ranges being built
 * are counted. Call before writing. Returns 0, -etmkit_err_nomem,
 * -etmkit_err_invalid, or the resolver's error. */
int profile_finish(struct profile *p);

/* Whether a count reached UINT64_MAX and stopped there. */
int profile_saturated(const struct profile *p);

/* Distinct ranges and branches counted, over all binaries, as of the last
 * profile_finish() for the branches (until then a range's branches may be
 * kept with the range). */
size_t profile_range_count(const struct profile *p);
size_t profile_branch_count(const struct profile *p);

/* One counted range or branch, for tests and other writers: the @i-th
 * (0 <= i < count) in no particular order; linear in the table size, for
 * tests. Returns 0, or
 * -etmkit_err_invalid (@i out of range, NULL). For a range @to is its
 * last instruction; for a branch @to is its target (0: indirect). */
struct profile_entry {
	size_t bin;
	uint64_t from, to, count;
	uint32_t ctx;              /* cfg.contexts: the call context, a node
				      (0: the empty context) */
};
int profile_range_at(const struct profile *p, size_t i,
		     struct profile_entry *out);
int profile_branch_at(const struct profile *p, size_t i,
		      struct profile_entry *out);

/* ---- AutoFDO text (digest perf-data.md 4a) ------------------------------ */

/* What the writer says about binary index i (bins[i]). */
struct profile_binary {
	const char *name;          /* the path as the recording names it */
	uint8_t build_id[20];      /* zero-padded; all zero: unknown */
	uint64_t base;             /* subtracted from every address: the
				      p_vaddr of the binary's first PT_LOAD
				      (simpleperf's AutoFDO writer; 0 for a
				      raw dump) */
	uint64_t text_base;        /* profile_write_profgen(): subtracted
				      from every address: the p_vaddr of
				      the first executable PT_LOAD rounded
				      down to 4 KiB (llvm-profgen's
				      --use-offset, digest 4d) */
	int skip;                  /* leave the binary out */
};

/* Write the profile as simpleperf's inject does (digest 4a): one block
 * per binary that has counts and is not skipped, in the order of their
 * names (then build ids): the number of ranges, "from-to:count" lines,
 * "0" (no address lines), the number of branches, "from->to:count" lines,
 * each sorted by addresses, in lowercase hex less @base; ranges with an
 * address below @base are left out, a branch from below @base too, a
 * branch to below it goes to 0. Then "// build_id: 0x" and 40 hex digits,
 * "// " and the name, and an empty line. With more than one block, the
 * file starts with the line "// Please split this file. AutoFDO only
 * accepts profile for one binary." Returns 0; -etmkit_err_invalid (NULL
 * argument, a traces profile, a binary index counted that is not below
 * @nbins, a NULL name), -etmkit_err_nomem, -etmkit_err_io (writing @f failed). Call
 * profile_finish() first. */
int profile_write_autofdo(const struct profile *p, FILE *f,
			  const struct profile_binary *bins, size_t nbins);

/* Which binaries have counts: @has[i] (@nbins bytes) becomes 1 for
 * binary index i with a range or a branch, else 0. Returns how many have
 * counts; -etmkit_err_invalid (NULL argument, a binary counted that is
 * not below @nbins). */
long profile_counted_binaries(const struct profile *p, size_t nbins,
			      unsigned char *has);

/* ---- BOLT pre-aggregated text (digest perf-data.md 4c) ------------------ */

/* Write the taken-branch traces (cfg.traces) of the one binary that has
 * counts and is not skipped, as perf2bolt -pa reads them in LLVM 16
 * (which accepts the legacy lines only: docs/perf-data.md "Profiles"):
 * "B <from> <to> <count> 0" per taken branch (no misprediction is
 * traced), then "F <start> <end> <count>" per range, each sorted by
 * addresses, in lowercase hex without 0x, at the binary's ELF virtual
 * addresses (for BOLT the offset from the binary's load base: the
 * address itself for an executable, the ELF address of a position-
 * independent one whose first segment is at 0). Nothing is written when
 * no binary has counts. Returns 0; -etmkit_err_invalid (NULL argument,
 * not a traces profile, a contexts profile, a binary counted that is not below @nbins or has
 * a NULL name, more than one binary to write: pick one with skip),
 * -etmkit_err_nomem, -etmkit_err_io (writing @f failed). Call
 * profile_finish() first. */
int profile_write_bolt(const struct profile *p, FILE *f,
		       const struct profile_binary *bins, size_t nbins);

/* ---- llvm-profgen unsymbolized profile (digest perf-data.md 4d) --------- */

/* Write the taken-branch traces (cfg.traces) of the one binary that has
 * counts and is not skipped, as llvm-profgen --skip-symbolization writes
 * them and --unsymbolized-profile reads them: the number of ranges,
 * "start-end:count" lines, the number of branches, "from->to:count"
 * lines, each sorted by addresses, in lowercase hex without 0x, less
 * @text_base (the offsets of llvm-profgen's default --use-offset); a
 * range or branch with an address below @text_base is left out. With no
 * binary to write: "0" and "0". Returns as profile_write_bolt().
 * With cfg.contexts, the context-sensitive form: per context, sorted by
 * its text (bytewise), a line "[CONTEXT]" then its two sections, every
 * line indented by two spaces. CONTEXT is the call sites, root first,
 * each "0x" and its offset (less @text_base) in lowercase hex, joined by
 * " @ "; empty for the empty context ("[]"). The frames of a context up
 * to its last call site that is in no binary, in another binary or below
 * @text_base are left out (as llvm-profgen cuts contexts at external
 * frames): contexts that become the same merge, their counts summed. */
int profile_write_profgen(const struct profile *p, FILE *f,
			  const struct profile_binary *bins, size_t nbins);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_PROFILE_H */
