/* libFuzzer target: the ELF file reader (elf_file.h) on arbitrary bytes,
 * through elf_file_open_memory() (elf_file_open() maps the file and calls
 * it).
 * Invariants: the open either succeeds or fails with a format or nomem
 * error whose diag names the input and says why, leaving no handle; a
 * build id copies at most 20 bytes and zeroes the rest; every segment's
 * file bytes lie inside the input, and offset -> vaddr -> offset round-
 * trips (modulo 2^64) to an offset inside the input for each end of a
 * segment's bytes;
 * symbols are sorted with one per address, each named, and
 * elf_file_symbol() returns a symbol that holds the address as
 * documented (addr <= vaddr, inside its size or of size 0 with no symbol
 * between), and the symbol itself for its own address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/elf_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_lookup(const struct elf_file *ef, uint64_t va)
{
	const struct elf_symbol *s = elf_file_symbol(ef, va);
	size_t n = elf_file_symbol_count(ef), i;

	if (!s)
		return;
	if (s->addr > va)
		abort();
	if (s->size && va - s->addr >= s->size)
		abort();
	if (s->size == 0)
		for (i = 0; i < n; i++) {
			const struct elf_symbol *o = elf_file_symbol_at(ef, i);

			if (o->addr > s->addr && o->addr <= va)
				abort();
		}
}

static void check_segment(const struct elf_file *ef,
			  const struct elf_segment *s, size_t size)
{
	uint64_t ends[2] = { s->offset, s->offset + s->filesz - 1 };

	if (s->offset > size || s->filesz > size - s->offset)
		abort();
	for (int k = 0; k < 2 && s->filesz; k++) {
		uint64_t va, off;

		/* Another segment may hold the same file bytes or
		 * addresses and come first: the round trip lands in the
		 * file, not necessarily on the same offset. */
		if (elf_file_offset_to_vaddr(ef, ends[k], &va) != 0)
			abort();
		if (elf_file_vaddr_to_offset(ef, va, &off) != 0)
			abort();
		if (off >= size)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_file *ef = (struct elf_file *)&ef;
	struct image_diag d;
	uint8_t id[20];
	size_t n, i, idsz;
	int rc = elf_file_open_memory(&ef, data, size, "fuzz.elf", &d);

	if (rc) {
		if (ef || (rc != -etmkit_err_format && rc != -etmkit_err_nomem))
			abort();
		if (strcmp(d.path, "fuzz.elf") != 0 || !d.message[0])
			abort();
		return 0;
	}
	memset(id, 0xa5, sizeof(id));
	idsz = elf_file_build_id(ef, id);
	for (i = idsz; i < sizeof(id); i++)
		if (id[i] != 0)
			abort();
	n = elf_file_segment_count(ef);
	for (i = 0; i < n; i++)
		check_segment(ef, elf_file_segment(ef, i), size);
	if (elf_file_segment(ef, n))
		abort();
	n = elf_file_symbol_count(ef);
	for (i = 0; i < n; i++) {
		const struct elf_symbol *s = elf_file_symbol_at(ef, i);

		if (!s->name || !s->name[0])
			abort();
		if (i && elf_file_symbol_at(ef, i - 1)->addr >= s->addr)
			abort();
		if (elf_file_symbol(ef, s->addr) != s)
			abort();
		check_lookup(ef, s->addr + (s->size ? s->size - 1 : 0x40));
		check_lookup(ef, s->addr + s->size);
	}
	if (elf_file_symbol_at(ef, n))
		abort();
	elf_file_free(ef);
	return 0;
}
