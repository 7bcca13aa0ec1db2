/* etmkit: simpleperf's FILE2 feature (digest perf-data.md 1.4, bit 132):
 * repeated {u32 len, FileFeature protobuf of len bytes}. Only the fields a
 * decoder needs are read: 1 path, 2 type, 3 min_vaddr, 6 elf_file {1
 * file_offset_of_min_vaddr}, 7 kernel_module {1
 * memory_offset_of_min_vaddr}; symbols (4) and dex offsets (5) are
 * skipped. Protobuf encoding (varints, wire types 0, 1, 2, 5) as
 * protobuf's encoding guide gives it; every length is checked against the
 * bytes left before it is used. */
#include "perf/perf_maps_internal.h"

#include <string.h>

/* A varint at @p[*pos..n): at most 10 bytes. 0, or -1 (cut or too long). */
static int varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < 10; i++) {
		uint8_t b;

		if (*pos >= n)
			return -1;
		b = p[(*pos)++];
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* Skip or take one field at @p[*pos..n): its number and wire type in
 * *@num and *@wt, a varint value in *@v, a length-delimited one in
 * *@sub and *@sub_n. 0 or -1. */
static int field(const uint8_t *p, size_t n, size_t *pos, uint64_t *num,
		 unsigned *wt, uint64_t *v, const uint8_t **sub, size_t *sub_n)
{
	uint64_t key, len;

	if (varint(p, n, pos, &key) < 0)
		return -1;
	*num = key >> 3;
	*wt = (unsigned)(key & 7);
	switch (*wt) {
	case 0:
		return varint(p, n, pos, v);
	case 1:
		if (n - *pos < 8)
			return -1;
		*pos += 8;
		return 0;
	case 5:
		if (n - *pos < 4)
			return -1;
		*pos += 4;
		return 0;
	case 2:
		if (varint(p, n, pos, &len) < 0 || len > n - *pos)
			return -1;
		*sub = p + *pos;
		*sub_n = (size_t)len;
		*pos += (size_t)len;
		return 0;
	default:
		return -1; /* groups (3, 4) are not in record_file.proto */
	}
}

/* Field 1 (a varint) of the sub-message @p[0..n) into *@v. 0 or -1. */
static int first_varint(const uint8_t *p, size_t n, uint64_t *v)
{
	size_t pos = 0;

	while (pos < n) {
		uint64_t num, x = 0;
		unsigned wt;
		const uint8_t *sub;
		size_t sub_n;

		if (field(p, n, &pos, &num, &wt, &x, &sub, &sub_n) < 0)
			return -1;
		if (num == 1 && wt == 0)
			*v = x;
	}
	return 0;
}

static int entry(const uint8_t *p, size_t n, struct perf_file2_entry *e)
{
	size_t pos = 0;

	memset(e, 0, sizeof(*e));
	while (pos < n) {
		uint64_t num, v = 0;
		unsigned wt;
		const uint8_t *sub = NULL;
		size_t sub_n = 0;

		if (field(p, n, &pos, &num, &wt, &v, &sub, &sub_n) < 0)
			return -1;
		if (num == 1 && wt == 2) {
			e->path = (const char *)sub;
			e->path_len = sub_n;
		} else if (num == 2 && wt == 0) {
			e->type = (uint32_t)v;
		} else if (num == 3 && wt == 0) {
			e->min_vaddr = v;
		} else if (num == 6 && wt == 2) {
			if (first_varint(sub, sub_n,
					 &e->file_offset_of_min_vaddr) < 0)
				return -1;
			e->has_elf = 1;
		} else if (num == 7 && wt == 2) {
			if (first_varint(sub, sub_n,
					 &e->memory_offset_of_min_vaddr) < 0)
				return -1;
			e->has_module = 1;
		}
	}
	return e->path ? 0 : -1;
}

int perf_file2_next(const uint8_t *sec, size_t n, size_t *pos,
		    struct perf_file2_entry *e)
{
	uint32_t len;

	if (*pos >= n)
		return -etmkit_err_eos;
	if (n - *pos < 4) {
		*pos = n;
		return -etmkit_err_truncated;
	}
	len = perf_rd32(sec + *pos);
	if (len > n - *pos - 4) {
		*pos = n; /* framing lost: nothing after is trusted */
		return -etmkit_err_truncated;
	}
	*pos += 4;
	if (entry(sec + *pos, len, e) < 0) {
		*pos += len;
		return -etmkit_err_format;
	}
	*pos += len;
	return 0;
}
