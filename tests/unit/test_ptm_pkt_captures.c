/* PTM packet decoder tests: every packet of every PTM source of the
 * captures under ../shared (TC2 0x13 and 0x14, Snowball 0x10 and 0x11 in
 * CoreSight frames; tc2-ptm-rstk-t32, raw) against OpenCSD 1.8.0's
 * listing of them: offset, bytes, type and the values OpenCSD prints. */
#include "unit/ptm_pkt_test.h"

#include "ts_session.h"
#include "ts_stream.h"
#include "unit/ocsd_listing.h"

/* A PTM source: its snapshot, buffer file (framed or raw), device file,
 * trace ID, and the ID its packet lines carry in the listing (a raw
 * buffer's lines say 0). */
static const struct capture {
	const char *dir, *bin, *ini;
	int framed;
	uint8_t id, list_id;
} captures[] = {
	{ "etmv3/TC2", "cstrace.bin", "device_8.ini", 1, 0x13, 0x13 },
	{ "etmv3/TC2", "cstrace.bin", "device_9.ini", 1, 0x14, 0x14 },
	{ "ptm/Snowball", "cstrace.bin", "device_2.ini", 1, 0x10, 0x10 },
	{ "ptm/Snowball", "cstrace.bin", "device_3.ini", 1, 0x11, 0x11 },
	{ "ptm/tc2-ptm-rstk-t32", "PTM_0_2.bin", "device5.ini", 0, 0x02, 0x00 },
};

static int shared_missing(void)
{
	FILE *f = fopen(TESTDATA "/ptm/Snowball/ocsd-1.8.0-decode.ppl", "rb");

	if (!f)
		return 1;
	fclose(f);
	return 0;
}

/* OpenCSD's packet names and ours. */
static int ocsd_type(const char *name)
{
	static const struct { const char *prefix; uint8_t type; } map[] = {
		{ "NOTSYNC", ptm_pkt_unsynced },
		{ "ASYNC", ptm_pkt_a_sync },
		{ "ISYNC", ptm_pkt_i_sync },
		{ "ATOM", ptm_pkt_atom },
		{ "BRANCH_ADDRESS", ptm_pkt_branch_address },
		{ "WP_UPDATE", ptm_pkt_waypoint_update },
		{ "TRIGGER", ptm_pkt_trigger },
		{ "CTXTID", ptm_pkt_context_id },
		{ "VMID", ptm_pkt_vmid },
		{ "TIMESTAMP", ptm_pkt_timestamp },
		{ "ERET", ptm_pkt_exception_return },
		{ "IGNORE", ptm_pkt_ignore },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(name, map[i].prefix, strlen(map[i].prefix)))
			return map[i].type;
	return -1;
}

/* OpenCSD's "ISA=" names. Returns an etmkit_isa, or -1 if absent. */
static int isa_field(const char *s)
{
	if (strstr(s, "ISA=ARM(32)"))
		return etmkit_isa_arm;
	if (strstr(s, "ISA=Thumb2"))
		return etmkit_isa_thumb;
	if (strstr(s, "ISA=ThumbEE"))
		return etmkit_isa_thumbee;
	if (strstr(s, "ISA=Jazelle"))
		return etmkit_isa_jazelle;
	return -1;
}

static uint64_t binary_to_gray(uint64_t b)
{
	return b ^ (b >> 1);
}

/* OpenCSD's Idx for every byte of the CoreSight frames @data[0..@n):
 * it numbers the bytes of each run of one ID inside a 16-byte frame from
 * the run's start (the frame's first byte when the run goes on from the
 * previous frame, else the ID byte that opened it), a byte's Idx being
 * that plus the run's bytes before it in the frame; a delayed ID change
 * gives the byte after the ID byte to the old run (as
 * tests/golden/compare_ocsd4_pkt.py's ocsd_index_map()). Returns a
 * malloc'd array indexed by file offset. */
static uint64_t *ocsd_index_map(const uint8_t *data, size_t n)
{
	uint64_t *m = calloc(n ? n : 1, sizeof(*m));
	int cur = -1;

	assert_non_null(m);
	for (size_t f = 0; f + 16 <= n; f += 16) {
		uint8_t aux = data[f + 15];
		uint64_t base = f, k2 = 0;

		for (unsigned k = 0; k < 8; k++) {
			uint8_t even = data[f + 2 * k];
			size_t pos = f + 2 * k;
			int has_odd = k < 7;

			if ((even & 1) && (even >> 1) != cur) {
				int delayed = has_odd && ((aux >> k) & 1);

				if (delayed)
					m[pos + 1] = base + k2;
				cur = even >> 1;
				base = pos;
				k2 = 0;
				if (!delayed && has_odd)
					m[pos + 1] = base + k2++;
				continue;
			}
			if (!(even & 1))
				m[pos] = base + k2++;
			if (has_odd)
				m[pos + 1] = base + k2++;
		}
	}
	return m;
}

/* The decoded values OpenCSD prints for the packet, against ours. Returns
 * how many values were compared. */
static int check_fields(const struct ptm_pkt_decoder *dec,
			const struct ptm_packet *p, const char *text,
			const char *where)
{
	uint64_t v;
	char s[8];
	int n = 0, isa = isa_field(text);

#define SAME(ours, theirs, what)                                               \
	do {                                                                   \
		if ((uint64_t)(ours) != (uint64_t)(theirs))                    \
			fail_msg("%s: %s 0x%llx, OpenCSD 0x%llx", where, what, \
				 (unsigned long long)(ours),                   \
				 (unsigned long long)(theirs));                \
		n++;                                                           \
	} while (0)

	switch (p->type) {
	case ptm_pkt_atom: {
		const char *at = strstr(text, "Atom packet; ");
		size_t k;

		assert_non_null(at);
		at += strlen("Atom packet; ");
		k = strcspn(at, ";");
		ptm_atoms_string(&p->u.atoms, s);
		if (strlen(s) != k || strncmp(s, at, k))
			fail_msg("%s: atoms %s, OpenCSD %.*s", where, s, (int)k, at);
		n++;
		if (field_dec(text, "Cycles=", &v))
			SAME(p->u.atoms.cycles, v, "atom cycles");
		SAME(p->u.atoms.has_cycles, strstr(text, "Cycles=") != NULL,
		     "atom has cycles");
		break;
	}
	case ptm_pkt_branch_address:
	case ptm_pkt_waypoint_update: {
		const struct ptm_branch *br = &p->u.branch;
		const char *exc = strstr(text, "Excep=");

		/* Before an I-sync OpenCSD prints the unknown high bits as
		 * "????" and places the carried bits as for Thumb; we place
		 * them as for ARM (as the ETMv3 decoder does) and flag the
		 * packet partial: with the instruction set unknown neither
		 * placement is known to be right, so only the flag is
		 * compared. */
		SAME(br->partial, strstr(text, "Addr=0x????") != NULL, "partial");
		if (br->partial)
			break;
		if (field_hex(text, "Addr=0x", &v))
			SAME(br->addr, v, "address");
		/* "~[...]": the bits the packet carried. */
		if (field_hex(text, "~[0x", &v))
			SAME(br->addr & (br->addr_bits >= 32 ? ~0u :
					 (1u << br->addr_bits) - 1), v,
			     "address bits carried");
		if (isa >= 0)
			SAME(br->isa, isa, "ISA");
		if (exc) {
			const char *num = strchr(exc, '[');

			assert_non_null(num);
			SAME(br->exception, strtoul(num + 1, NULL, 16), "exception");
			SAME(br->ns, strstr(text, "; NS;") != NULL, "NS");
		} else if (p->type == ptm_pkt_branch_address) {
			SAME(br->exception, 0, "exception");
		}
		if (field_dec(text, "Cycles=", &v))
			SAME(br->cycles, v, "branch cycles");
		SAME(br->has_cycles, strstr(text, "Cycles=") != NULL,
		     "branch has cycles");
		break;
	}
	case ptm_pkt_i_sync: {
		static const char *const reasons[4] = {
			"(Periodic)", "(Trace Enable)", "(Trace Restart",
			"(Debug Exit)" };
		const struct ptm_isync *is = &p->u.isync;

		if (field_hex(text, "Addr=0x", &v))
			SAME(is->addr, v, "I-sync address");
		assert_true(strstr(text, reasons[is->reason]) != NULL);
		n++;
		SAME(is->ns, strstr(text, "; NS; ") != NULL, "I-sync NS");
		if (isa >= 0)
			SAME(is->isa, isa, "I-sync ISA");
		if (field_dec(text, "Cycles=", &v))
			SAME(is->cycles, v, "I-sync cycles");
		SAME(is->has_cycles, strstr(text, "Cycles=") != NULL,
		     "I-sync has cycles");
		break;
	}
	case ptm_pkt_timestamp: {
		const struct ptm_timestamp *ts = &p->u.timestamp;

		/* OpenCSD 1.8.0 prints a Gray-coded timestamp as traced
		 * (the Snowball PTM's, PFTv1.0): ours is the binary value,
		 * so compare its Gray code (test_ptm_pkt.c shows the binary
		 * values rise; the Gray codes OpenCSD prints do not). */
		if (field_hex(text, "TS=0x", &v))
			SAME(dec->info.ts_binary ? ts->value :
			     binary_to_gray(ts->value), v, "timestamp");
		if (field_dec(text, "Cycles=", &v))
			SAME(ts->cycles, v, "timestamp cycles");
		SAME(ts->has_cycles, strstr(text, "Cycles=") != NULL,
		     "timestamp has cycles");
		break;
	}
	case ptm_pkt_context_id:
		if (field_hex(text, "CtxtID=0x", &v))
			SAME(p->u.context_id, v, "context ID");
		break;
	case ptm_pkt_vmid:
		if (field_hex(text, "VMID=0x", &v))
			SAME(p->u.vmid, v, "VMID");
		break;
	default:
		break;
	}
	return n;
#undef SAME
}

/* One listing entry: a packet, or a run of NOTSYNC lines joined. */
struct entry {
	unsigned long long idx;
	uint8_t bytes[64];
	size_t nb;      /* bytes listed (NOTSYNC: the first 64 kept) */
	size_t total;   /* bytes in the entry */
	char text[512];
	int type;
};

/* The next entry of the listing for ID @id, or 0 at its end. A line
 * repeating the previous one (OpenCSD lists the packet that ends the
 * trace twice) is passed over. */
static int next_entry(FILE *ppl, unsigned id, struct entry *e, char *prev,
		      size_t *spare)
{
	char line[4096];

	memset(e, 0, sizeof(*e));
	e->type = -2;
	for (;;) {
		long at = ftell(ppl);
		unsigned long long idx;
		unsigned lid;
		uint8_t bytes[64];
		size_t nb = 0;
		const char *s, *name;
		int k = 0, type;

		if (!fgets(line, sizeof(line), ppl))
			return e->type != -2;
		if (sscanf(line, "Idx:%llu; ID:%x; [%n", &idx, &lid, &k) != 2 ||
		    k == 0 || lid != id)
			continue;
		if (!strcmp(line, prev))
			continue;
		for (s = line + k; s[0] == '0' && s[1] == 'x'; s += 5)
			if (nb < sizeof(bytes))
				bytes[nb++] = (uint8_t)strtoul(s, NULL, 16);
		name = strstr(s, "];\t");
		assert_non_null(name);
		name += 3;
		type = ocsd_type(name);
		if (type < 0)
			fail_msg("ID %x offset %llu: unexpected OpenCSD packet %s",
				 id, idx, name);
		if (e->type == ptm_pkt_unsynced) {
			size_t zeros = 0;

			if (type != ptm_pkt_unsynced) {
				/* The run ends: this line is read again. */
				fseek(ppl, at, SEEK_SET);
				return 1;
			}
			/* OpenCSD's listing artifact: zeros that ended one input
			 * block of its search for A-sync and turned out not to
			 * be one get a NOTSYNC line of their own, and are
			 * counted again in the next line, which then shows as
			 * many bytes from beyond its end (Snowball 0x11 at
			 * 4669: `00`, then 16 bytes at 4670 from a frame
			 * holding 15 of this ID, the last, 0x0f, from none).
			 * The next line is cut by the zeros' count. */
			if (*spare) {
				nb = nb > *spare ? nb - *spare : 0;
				*spare = 0;
			}
			for (size_t i = 0; i < nb; i++)
				zeros += bytes[i] == 0;
			if (zeros == nb)
				*spare = nb;
			for (size_t i = 0; i < nb && e->nb < sizeof(e->bytes); i++)
				e->bytes[e->nb++] = bytes[i];
			e->total += nb;
			strcpy(prev, line);
			continue;
		}
		strcpy(prev, line);
		e->idx = idx;
		e->type = type;
		memcpy(e->bytes, bytes, nb);
		e->nb = nb;
		e->total = nb;
		snprintf(e->text, sizeof(e->text), "%s", name);
		if (type != ptm_pkt_unsynced)
			return 1;
		*spare = 0;
		for (size_t i = 0; i < nb && bytes[i] == 0; i++)
			if (i + 1 == nb)
				*spare = nb;
	}
}

static void test_captures(void **state)
{
	size_t total_pkts = 0, total_fields = 0, total_general = 0;

	(void)state;
	test_need(shared_missing(), TESTDATA);
	for (size_t ci = 0; ci < sizeof(captures) / sizeof(captures[0]); ci++) {
		const struct capture *cap = &captures[ci];
		struct ptm_pkt_decoder *dec;
		struct ptm_packet *recs;
		struct ts_stream ts;
		struct ptm_config c;
		struct entry e;
		size_t len, nrec = 0, at = 0, lines = 0;
		char path[512], prev[4096] = "";
		uint8_t *data;
		uint64_t *idx_map = NULL;
		size_t spare = 0;
		FILE *ppl;
		int got;

		snprintf(path, sizeof(path), "%s/%s/%s", TESTDATA, cap->dir, cap->ini);
		ptm_config_init(&c);
		c.etmcr = ini_reg(path, "ETMCR");
		c.etmidr = ini_reg(path, "ETMIDR");
		c.etmccer = ini_reg(path, "ETMCCER");
		assert_int_equal(ini_reg(path, "ETMTRACEIDR") & 0x7f, cap->id);
		assert_int_equal(ptm_pkt_alloc(&dec, &c), 0);

		snprintf(path, sizeof(path), "%s/%s/%s", TESTDATA, cap->dir, cap->bin);
		data = ts_read_file(path, &len);
		if (!data)
			fail_msg("cannot read %s", path);
		memset(&ts, 0, sizeof(ts));
		if (cap->framed) {
			assert_int_equal(ts_stream_deformat(data, len, cap->id, 1, &ts), 0);
			idx_map = ocsd_index_map(data, len);
		} else {
			ts.b = data;
			ts.n = len;
		}
		recs = calloc(ts.n + 1, sizeof(*recs));
		assert_non_null(recs);
		/* Fed in odd-sized chunks: the listing must not depend on
		 * them. */
		for (size_t off = 0; off < ts.n; off += 61) {
			size_t k = ts.n - off < 61 ? ts.n - off : 61;

			assert_int_equal(ptm_pkt_feed(dec, ts.b + off, k,
						      ts.offs ? ts.offs + off : NULL,
						      off), 0);
			while ((got = ptm_pkt_next(dec, recs + nrec, 16)) > 0)
				nrec += (size_t)got;
		}
		ptm_pkt_finish(dec);
		while ((got = ptm_pkt_next(dec, recs + nrec, 16)) > 0)
			nrec += (size_t)got;

		/* Time goes forward: every timestamp at least the one
		 * before. For the Gray-coded Snowball timestamps (PFTv1.0)
		 * this holds of the decoded values only; the Gray codes
		 * themselves, which OpenCSD 1.8.0 lists as the timestamp,
		 * go down in places (counted here, and required). */
		{
			uint64_t prev_ts = 0, prev_gray = 0;
			size_t gray_down = 0, nts = 0;

			for (size_t i = 0; i < nrec; i++) {
				const struct ptm_timestamp *t = &recs[i].u.timestamp;

				if (recs[i].type != ptm_pkt_timestamp)
					continue;
				if (t->value < prev_ts)
					fail_msg("%s ID 0x%x offset %llu: timestamp "
						 "0x%llx after 0x%llx", cap->dir,
						 cap->id,
						 (unsigned long long)recs[i].offset,
						 (unsigned long long)t->value,
						 (unsigned long long)prev_ts);
				gray_down += binary_to_gray(t->value) < prev_gray;
				prev_ts = t->value;
				prev_gray = binary_to_gray(t->value);
				nts++;
			}
			if (!dec->info.ts_binary && nts > 1)
				assert_true(gray_down > 0);
		}

		/* The fast paths against the general decoder, packet by
		 * packet. */
		total_general += pgeneral_same(c.etmcr, c.etmidr, c.etmccer, ts.b,
					       ts.n, recs, nrec);

		snprintf(path, sizeof(path), "%s/%s/ocsd-1.8.0-decode.ppl", TESTDATA,
			 cap->dir);
		ppl = fopen(path, "r");
		assert_non_null(ppl);
		while (next_entry(ppl, cap->list_id, &e, prev, &spare)) {
			const struct ptm_packet *r;
			char where[640];

			snprintf(where, sizeof(where), "%s ID 0x%x offset %llu",
				 cap->dir, cap->id, e.idx);
			if (at >= nrec)
				fail_msg("%s: no record for OpenCSD's %s", where, e.text);
			r = &recs[at];
			if ((idx_map ? idx_map[r->offset] : r->offset) != e.idx || r->length != e.total ||
			    r->type != e.type || r->error)
				fail_msg("%s: record %s at %llu, %u bytes, error %d "
					 "(%s); OpenCSD %s, %zu bytes", where,
					 ptm_pkt_type_name(r->type),
					 (unsigned long long)r->offset, r->length,
					 r->error, r->why ? r->why : "", e.text,
					 e.total);
			assert_memory_equal(r->raw, e.bytes,
					    e.nb < r->size ? e.nb : r->size);
			total_fields += (size_t)check_fields(dec, r, e.text, where);
			at++;
			lines++;
		}
		fclose(ppl);
		if (at != nrec)
			fail_msg("%s ID 0x%x: %zu records, OpenCSD lists %zu packets "
				 "(next: %s at %llu)", cap->dir, cap->id, nrec, at,
				 ptm_pkt_type_name(recs[at].type),
				 (unsigned long long)recs[at].offset);
		total_pkts += lines;
		ptm_pkt_free(dec);
		free(recs);
		if (cap->framed)
			ts_stream_free(&ts);
		free(idx_map);
		free(data);
	}
	print_message("captures: %zu sources, %zu packets matched (offset, "
		      "bytes, type), %zu decoded values compared; %zu packets "
		      "decoded alike by the general decoder\n",
		      sizeof(captures) / sizeof(captures[0]), total_pkts,
		      total_fields, total_general);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
