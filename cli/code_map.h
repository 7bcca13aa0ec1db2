/* etmkit encode: the program image an execution record implies. */
#ifndef ETMKIT_CLI_CODE_MAP_H
#define ETMKIT_CLI_CODE_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct code_map;

/* NULL when out of memory. */
struct code_map *code_map_alloc(void);
void code_map_free(struct code_map *m);

/* Record @n bytes of code at @addr. Returns 0; 1 when a byte differs from
 * one recorded before at the same address (*@conflict: where); -1 when out
 * of memory. */
int code_map_add(struct code_map *m, uint64_t addr, const uint8_t *b,
		 size_t n, uint64_t *conflict);

/* How many bytes are known. */
size_t code_map_bytes(const struct code_map *m);

/* Write one file per run of adjacent pages into @dir/@subdir (which must
 * exist) and its [dumpN] sections (file names relative to @dir) to @ini.
 * Returns 0, or -1 with a message in @err. */
int code_map_write(const struct code_map *m, const char *dir,
		   const char *subdir, FILE *ini, char *err, size_t errcap);

#endif
