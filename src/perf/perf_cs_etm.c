/* etmkit: the cs_etm AUXTRACE_INFO metadata (digest 3.1-3.5) decoded into
 * etmkit's ETMv3 / ETMv4 / ETE configurations, and the trace ID per CPU
 * (include/etmkit/perf.h). */
#include "perf/perf_internal.h"

#include <stdlib.h>
#include <string.h>

#define CS_HEADER_WORDS 3 /* version, pmu_type|nr_cpu, snapshot (3.1) */

/* Params a block must have (3.2): ETMv3/PTM ETMCR, TRACEIDR, CCER, IDR;
 * ETMv4 CONFIGR, TRACEIDR, IDR0, IDR1, IDR2, IDR8, AUTHSTATUS; ETE the
 * same plus DEVARCH. One more (TS_SOURCE) is read when present. */
static uint64_t base_params(uint64_t magic)
{
	return magic == PERF_CS_MAGIC_ETM3 ? 4 : magic == PERF_CS_MAGIC_ETM4 ? 7 : 8;
}

static void fill_config(struct perf_cs_etm_cpu *c, uint64_t magic)
{
	const uint64_t *p = c->params;
	uint64_t base = base_params(magic);

	if (magic == PERF_CS_MAGIC_ETM3) {
		etm3_config_init(&c->etm3);
		c->protocol = etmkit_proto_etmv3;
		c->etm3.etmcr = (uint32_t)p[0];
		c->traceidr = (uint32_t)p[1];
		c->etm3.etmccer = (uint32_t)p[2];
		c->etmccer_or_authstatus = (uint32_t)p[2];
		c->etm3.etmidr = (uint32_t)p[3];
		/* 3.2: perf names the block PTM by ETMIDR & 0x300; the
		 * architecture's rule is ETMIDR[11:8] = 3 (IHI 0035B
		 * 3.16.28), which ptm_etmidr_is_ptm() applies everywhere. */
		c->ptm = (uint8_t)ptm_etmidr_is_ptm(c->etm3.etmidr);
	} else {
		etm4_config_init(&c->etm4);
		c->protocol = magic == PERF_CS_MAGIC_ETE ? etmkit_proto_ete
							 : etmkit_proto_etmv4;
		c->etm4.trcconfigr = (uint32_t)p[0];
		c->traceidr = (uint32_t)p[1];
		c->etm4.trcidr0 = (uint32_t)p[2];
		c->etm4.trcidr1 = (uint32_t)p[3];
		c->etm4.trcidr2 = (uint32_t)p[4];
		c->etm4.trcidr8 = (uint32_t)p[5];
		c->etmccer_or_authstatus = (uint32_t)p[6];
		if (magic == PERF_CS_MAGIC_ETE) {
			c->trcdevarch = (uint32_t)p[7];
			c->etm4.flags |= ETM4_CFG_ETE;
		}
	}
	if (c->nr_params > base) { /* TS_SOURCE (3.4), newer perf only */
		c->has_ts_source = 1;
		c->ts_source = (int64_t)p[base];
	}
	/* 3.5: always mask, some perf versions set bit 31 as a placeholder */
	c->trace_id = (uint8_t)(c->traceidr & 0x7F);
}

/* One block at word @w of @words; *@used gets its length in words. */
static int parse_block(struct perf_file *pf, const uint8_t *priv,
		       uint64_t words, uint64_t w, uint64_t version,
		       struct perf_cs_etm_cpu *c, uint64_t *used,
		       struct perf_diag *d)
{
	uint64_t off = (uint64_t)(priv - pf->buf) + 8 * w;
	uint64_t magic, nr, hdr = version == 0 ? 2 : 3;

	if (words - w < hdr)
		return perf_fail(d, etmkit_err_format, off,
				 "cs_etm metadata block header runs past the "
				 "AUXTRACE_INFO record");
	magic = perf_rd64(priv + 8 * w);
	if (magic != PERF_CS_MAGIC_ETM3 && magic != PERF_CS_MAGIC_ETM4 &&
	    !(magic == PERF_CS_MAGIC_ETE && version >= 1))
		return perf_fail(d, etmkit_err_format, off,
				 "cs_etm metadata block with magic 0x%016llx: "
				 "not ETMv3/PTM, ETMv4 or ETE%s",
				 (unsigned long long)magic,
				 magic == PERF_CS_MAGIC_ETE ? " (ETE needs "
							      "version 1)" : "");
	/* Version 0 has fixed counts and no nr word (3.2). */
	nr = version == 0 ? base_params(magic) : perf_rd64(priv + 8 * (w + 2));
	if (nr > words - w - hdr)
		return perf_fail(d, etmkit_err_format, off + 16,
				 "cs_etm metadata block says %llu params, "
				 "%llu words are left",
				 (unsigned long long)nr,
				 (unsigned long long)(words - w - hdr));
	if (nr < base_params(magic))
		return perf_fail(d, etmkit_err_format, off + 16,
				 "cs_etm %s metadata block has %llu params: "
				 "needs at least %llu",
				 magic == PERF_CS_MAGIC_ETM3 ? "ETMv3/PTM"
				 : magic == PERF_CS_MAGIC_ETM4 ? "ETMv4" : "ETE",
				 (unsigned long long)nr,
				 (unsigned long long)base_params(magic));
	memset(c, 0, sizeof(*c));
	c->offset = off;
	c->cpu = (uint32_t)perf_rd64(priv + 8 * (w + 1));
	c->nr_params = nr;
	/* Keep what we know, skip what newer producers append (3.2). */
	for (uint64_t i = 0; i < nr && i < PERF_CS_MAX_PARAMS; i++)
		c->params[i] = perf_rd64(priv + 8 * (w + hdr + i));
	fill_config(c, magic);
	*used = hdr + nr;
	return 0;
}

int perf_cs_etm_parse(struct perf_file *pf, uint64_t off, uint32_t size,
		      struct perf_diag *d)
{
	const uint8_t *priv = pf->buf + off + 16;
	struct perf_cs_etm *cs = &pf->cs;
	uint64_t words, w, nr;

	if ((size - 16) % 8)
		return perf_fail(d, etmkit_err_format, off,
				 "cs_etm AUXTRACE_INFO of size %u: priv[] is "
				 "not whole u64s", size);
	words = (size - 16) / 8;
	if (words < CS_HEADER_WORDS)
		return perf_fail(d, etmkit_err_format, off,
				 "cs_etm AUXTRACE_INFO of size %u: no room for "
				 "its 3-word header", size);
	cs->offset = off;
	cs->version = perf_rd64(priv);
	if (cs->version > 2)
		return perf_fail(d, etmkit_err_unsupported, off + 16,
				 "cs_etm metadata version %llu: 0 to 2 are "
				 "known", (unsigned long long)cs->version);
	nr = perf_rd64(priv + 8);
	cs->nr_cpu = (uint32_t)nr;
	cs->pmu_type = (uint32_t)(nr >> 32);
	cs->snapshot = perf_rd64(priv + 16);
	/* A block is at least 2 + 4 words (version 0 ETMv3): the count must
	 * fit the record before anything is allocated by it. */
	if (cs->nr_cpu > (words - CS_HEADER_WORDS) / 6)
		return perf_fail(d, etmkit_err_format, off + 24,
				 "cs_etm metadata says %u CPUs: the record "
				 "holds at most %llu blocks", cs->nr_cpu,
				 (unsigned long long)((words - CS_HEADER_WORDS) /
						      6));
	pf->cpus = calloc(cs->nr_cpu ? cs->nr_cpu : 1, sizeof(*pf->cpus));
	if (!pf->cpus)
		return perf_fail(d, etmkit_err_nomem, off, "out of memory");
	w = CS_HEADER_WORDS;
	for (uint32_t i = 0; i < cs->nr_cpu; i++) {
		uint64_t used = 0;
		int err = parse_block(pf, priv, words, w, cs->version,
				      &pf->cpus[i], &used, d);

		if (err)
			return err;
		w += used;
	}
	/* 3.2: the blocks must fill the record exactly. */
	if (w != words)
		return perf_fail(d, etmkit_err_format, off + 16 + 8 * w,
				 "cs_etm metadata: %llu words after the last "
				 "CPU block", (unsigned long long)(words - w));
	cs->cpus = pf->cpus;
	pf->has_cs = 1;
	return 0;
}

/* 3.5: AUX_OUTPUT_HW_ID names the trace ID of its trailer's CPU and
 * replaces the metadata's. Major version above 0 is refused. */
int perf_cs_etm_apply_hw_ids(struct perf_file *pf, struct perf_diag *d)
{
	struct perf_record_iter it;
	struct perf_record rec;
	int err;

	perf_record_iter_init(&it, pf);
	while ((err = perf_record_next(&it, &rec, NULL)) != -etmkit_err_eos) {
		struct perf_cs_etm_cpu *c = NULL;

		if (err || rec.type != perf_rec_aux_output_hw_id)
			continue;
		if (rec.u.hw_id.major != 0)
			return perf_fail(d, etmkit_err_unsupported, rec.offset,
					 "AUX_OUTPUT_HW_ID major version %u: "
					 "only 0 is known", rec.u.hw_id.major);
		if (!rec.sid.has_cpu)
			return perf_fail(d, etmkit_err_format, rec.offset,
					 "AUX_OUTPUT_HW_ID without a CPU in its "
					 "trailer");
		for (uint32_t i = 0; i < pf->cs.nr_cpu; i++)
			if (pf->cpus[i].cpu == rec.sid.cpu)
				c = &pf->cpus[i];
		if (!c)
			continue; /* a CPU without metadata: nothing to map */
		if (c->trace_id_from_hw_id && c->trace_id != rec.u.hw_id.trace_id)
			return perf_fail(d, etmkit_err_format, rec.offset,
					 "AUX_OUTPUT_HW_ID maps CPU %u to trace "
					 "ID 0x%x, earlier to 0x%x", c->cpu,
					 rec.u.hw_id.trace_id, c->trace_id);
		c->trace_id = rec.u.hw_id.trace_id;
		c->trace_id_from_hw_id = 1;
		pf->cs.hw_id_count++;
	}
	return 0;
}

const struct perf_cs_etm *perf_file_cs_etm(const struct perf_file *pf)
{
	return pf && pf->has_cs ? &pf->cs : NULL;
}

const struct perf_cs_etm_cpu *perf_cs_etm_find_cpu(const struct perf_cs_etm *cs,
						   uint32_t cpu)
{
	for (uint32_t i = 0; cs && i < cs->nr_cpu; i++)
		if (cs->cpus[i].cpu == cpu)
			return &cs->cpus[i];
	return NULL;
}
