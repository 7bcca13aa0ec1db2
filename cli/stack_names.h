/* etmkit CLI: frame keys and names for call stacks (etmkit/stacks.h):
 * the function a frame enters, by the binaries' symbols
 * (cli/stack_names.c).
 *
 * A frame is named by the function symbol that holds the address it
 * enters; "BINARY+0xVADDR" (the binary's last path component and the ELF
 * address) when the binary has no symbol there; "0xADDR" (run-time)
 * outside every binary. Names never hold ';' (replaced by '_'). Equal
 * names share one key: frames merge by name. */
#ifndef ETMKIT_CLI_STACK_NAMES_H
#define ETMKIT_CLI_STACK_NAMES_H

#include <stdint.h>

#include "etmkit/image.h"
#include "etmkit/locate.h"

struct stack_names;

/* NULL when out of memory. @loc is the run's locator (not owned). */
struct stack_names *stack_names_alloc(const struct locate *loc);
void stack_names_free(struct stack_names *sn);

/* The key of the function at run-time address @addr of trace ID @id,
 * read from image @img (NULL: none) in memory space @space. Returns 0;
 * -etmkit_err_nomem. */
int stack_names_key(struct stack_names *sn, uint8_t id,
		    const struct image *img, uint8_t space, uint64_t addr,
		    uint64_t *key);

/* The name of @key (NULL when it is not one of ours). */
const char *stack_names_name(const struct stack_names *sn, uint64_t key);

#endif
