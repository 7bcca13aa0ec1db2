/* etmkit CLI core (the static library etmkit_cli_core): what the CLI's
 * profile and coverage do, as calls for other programs (the Python
 * extension), with the CLI's options, messages and exit classes.
 *
 * Reentrant: every call keeps its state in its own run. Messages go to
 * the calling thread's sink (cli_msg_set_sink(), cli/cli.h; stderr by
 * default), -q, the notes given and the progress setting are reset at
 * each entry point below (progress off unless --progress), and option
 * parsing holds a lock on getopt's process-wide state. argv arrays are
 * permuted in place as getopt_long() does (options first); argv[0] is
 * the command's name and is not read. Exit classes are those of the CLI
 * (enum cli_exit): 0 ok, 1 decode errors (counted, not a failure here),
 * 2 usage, 3 input refused (unreadable, malformed, unsupported) or
 * output not written. */
#ifndef ETMKIT_CLI_CORE_H
#define ETMKIT_CLI_CORE_H

#include <stddef.h>
#include <stdint.h>

struct profile_part;
struct etmkit_elem;

/* The INPUT... of profile and coverage, expanded: a file stays as it is
 * (one that is not there too: the run refuses it); a directory holding
 * snapshot.ini is one input (a snapshot); another directory gives every
 * file under it, recursively (symbolic links to directories not
 * followed), that starts with perf.data's magic PERFILE2, sorted bytewise
 * by path; @LIST gives the INPUTs of list file LIST, one per line (blank
 * lines and lines starting with # ignored, spaces around a line dropped),
 * relative ones from the list file's directory, @LIST in it too (16
 * deep at most). Order: as given, each expanded in place. *@out (free
 * it with cli_inputs_free()) has *@nout paths. Returns 0, or
 * cli_exit_input with the reason in @err (a list that cannot be read; a
 * list's line naming what is not there: "LIST:LINE: PATH: reason"; a
 * directory with no recording). Prints nothing. */
int cli_inputs_expand(int n, char **inputs, char ***out, size_t *nout,
		      char *err, size_t errlen);
void cli_inputs_free(char **v, size_t n);

/* The part (etmkit/profile_part.h) that `etmkit CMD` (@cmd "profile" or
 * "coverage") counts from @argv: its options and at most ONE input, as
 * typed (a file, a snapshot directory, or --snapshot DIR), decoded with
 * the CLI's own code (images, side-band, locator). The kind follows
 * --format: autofdo a tally part, bolt and profgen (without --stacks)
 * traces, coverage a coverage part; folded, chrome and --stacks make
 * none (usage). Decode errors in the trace are counted in the part
 * (decode_errors), not failures. Returns 0 and sets *@out (free it with
 * profile_part_free()), or the exit class (2, 3) with the first error
 * message's text (without "etmkit CMD: ") in @err; the messages go to
 * the sink as well. */
int cli_part_make(const char *cmd, int argc, char **argv,
		  struct profile_part **out, char *err, size_t errlen);

/* Write part @pp as `etmkit CMD` with the options of @argv writes its
 * counts (-o, --format, --binary; inputs and input options are not
 * read): the output, then the note on saturated counts, then, after
 * decode errors, their number (returns 1). Returns 0, 1, or the exit
 * class (2: options, a --format of another kind than @pp's, bolt with
 * several binaries and no --binary; 3: the output not written) with the
 * reason in @err. */
int cli_part_write(const char *cmd, int argc, char **argv,
		   const struct profile_part *pp, char *err, size_t errlen);

/* An element (or packet) stream over one input: @cmd "decode" (elements;
 * decode's options: the input's, --elf and the other image options,
 * --ranges for instruction ranges instead of single instructions; its
 * listing options are taken and do nothing, --pid and --binary are
 * refused) or "packets" (packet records; packets' options). Returns 0
 * and sets *@t, or the exit class with the reason in @err (the input
 * resolved and its images and side-band read here). */
struct cli_trace;
typedef int cli_trace_elems_fn(void *ctx, uint8_t id,
			       const struct etmkit_elem *e, size_t n);
/* @packet: the protocol's record (session.h's etmkit_packet_fn; struct
 * etm2_packet for etmkit_proto_etmv2) */
typedef int cli_trace_packet_fn(void *ctx, uint8_t id, int proto,
				const void *packet);
int cli_trace_open(struct cli_trace **t, const char *cmd, int argc,
		   char **argv, char *err, size_t errlen);
/* Decode the next piece: one AUX record of a perf.data (a lost one on
 * the way is a gap element), at most 1 MiB of a raw file or snapshot
 * buffer, an ETMv2 capture whole; the elements, in the session's batches,
 * to @on_elems (the decoder may hand some over at a later step; the last
 * at the end). Returns 0 (more to come), 1 (the end: everything handed
 * over), or < 0: -cli_exit after a message, or the first negative value
 * a callback returned (the stream stops there). */
int cli_trace_step(struct cli_trace *t, cli_trace_elems_fn *on_elems,
		   void *ctx);
/* The same for a "packets" stream. */
int cli_trace_packets_step(struct cli_trace *t, cli_trace_packet_fn *on_pkt,
			   void *ctx);
/* The message of the last step's error ("" if none): what the CLI
 * prints after "etmkit CMD: " (the steps' errors go there, not to the
 * message sink; their warnings and notes do). */
const char *cli_trace_error(const struct cli_trace *t);
/* Gaps that are decode errors, so far (as decode and profile count
 * them: not the recorder's losses). */
uint64_t cli_trace_decode_errors(const struct cli_trace *t);
void cli_trace_close(struct cli_trace *t);

/* The command's driver: profile (@flame 0) and coverage take INPUT...
 * (cli_inputs_expand()); each input is counted alone into a part, the
 * parts are merged and the merged part written. An input that cannot be
 * counted is reported ("etmkit CMD: INPUT: left out" after its error)
 * and left out; at the end "N of M inputs left out" and exit 1 (the
 * output written from the rest). None counted: the exit of the one
 * input, or 3 (2 when every input was a usage error). One input writes
 * what it always did. The call stacks (folded, chrome, flame, profgen
 * --stacks) take one input. */
struct cli_command;
int cli_count_main(const struct cli_command *cmd, int flame, int argc,
		   char **argv);

/* Whether option @name of command @cmd ("profile", "coverage", ...)
 * takes a value: 1 it does, 0 it does not, -1 @cmd has no such option
 * (or there is no command @cmd). @name is the long name without its
 * dashes, or a one-letter short name ("o" for -o). */
int cli_option_takes_value(const char *cmd, const char *name);

#endif /* ETMKIT_CLI_CORE_H */
