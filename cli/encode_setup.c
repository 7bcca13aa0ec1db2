/* etmkit encode: the encoders of a run, set up from the protocol, the
 * presets and the register options (ETMv3: ETMCR, ETMIDR, ETMCCER;
 * ETMv4/ETE: TRCCONFIGR, TRCIDRn), behind struct enc_ops (encode.h). */
#define _GNU_SOURCE /* strtok_r */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "encode.h"
#include "etmkit/etm2.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/exec.h"
#include "etmkit/ptm.h"

/* ---- Encoders --------------------------------------------------------------- */

static int e3_put(void *e, const struct exec_rec *r)
{
	return etm3_enc_put(e, r);
}

static int e3_finish(void *e)
{
	return etm3_enc_finish(e);
}

static void e3_free(void *e)
{
	etm3_enc_free(e);
}

static int e4_put(void *e, const struct exec_rec *r)
{
	return ete_enc_put(e, r);
}

static int e4_finish(void *e)
{
	return ete_enc_finish(e);
}

static void e4_free(void *e)
{
	ete_enc_free(e);
}

/* ETMv2: the encoder's cycles go to the capture writer, whose bytes go
 * to encoder_sink; the writer is finished after the encoder. The ops'
 * handle is the run, which holds both. */
static int e2_put(void *ctx, const struct exec_rec *it)
{
	struct encode_run *r = ctx;

	return etm2_enc_put(r->e2, it);
}

static int e2_cycles(void *ctx, const struct etm2_cycle *c, size_t n)
{
	struct encode_run *r = ctx;

	return etm2_cap_write(r->capw, c, n);
}

static int e2_finish(void *ctx)
{
	struct encode_run *r = ctx;
	int err = etm2_enc_finish(r->e2);

	return err ? err : etm2_cap_writer_finish(r->capw);
}

static void e2_free(void *ctx)
{
	struct encode_run *r = ctx;

	etm2_cap_writer_free(r->capw);
	etm2_enc_free(r->e2);
	r->capw = NULL;
	r->e2 = NULL;
}

static int ep_put(void *e, const struct exec_rec *r)
{
	return ptm_enc_put(e, r);
}

static int ep_finish(void *e)
{
	return ptm_enc_finish(e);
}

static void ep_free(void *e)
{
	ptm_enc_free(e);
}

const char *encode_family(const struct encode_run *r)
{
	return r->proto == etmkit_proto_etmv3 ? "ETMv3" :
	       r->proto == etmkit_proto_ptm ? "PTM" :
	       r->proto == etmkit_proto_etmv2 ? "ETMv2" : "ETMv4/ETE";
}

int encode_v3_family(const struct encode_run *r)
{
	return r->proto == etmkit_proto_etmv3 || r->proto == etmkit_proto_ptm ||
	       r->proto == etmkit_proto_etmv2;
}

static uint32_t reg_or(const struct encode_run *r, enum enc_reg i,
		       uint32_t def)
{
	return (r->have_reg >> i & 1) ? r->reg[i] : def;
}

static int unknown_preset(const struct encode_run *r, const char *list)
{
	cli_error("unknown preset '%s' for %s (expected "
		  "%s)", r->preset, encode_family(r), list);
	return cli_exit_usage;
}

static int encoder_error(int err)
{
	cli_error("the register set-up cannot be "
		  "encoded: %s", etmkit_errstr(err));
	return err == -etmkit_err_nomem ? cli_exit_input : cli_exit_usage;
}

/* A preset list "a,b,c": *@bits gets the union of the named presets'
 * @table entries. Returns 0 or -1 (unknown name, in @bad). */
struct preset {
	const char *name;
	uint32_t cr, idr;          /* ETMv3: ETMCR and ETMIDR bits */
	uint32_t enc_flags;        /* ETMv3: ETM3_ENC_* */
	uint32_t configr, maxspec; /* ETMv4/ETE: TRCCONFIGR bits, TRCIDR8 */
	uint32_t depth, misp, cancel;
	uint32_t idr0, q;          /* ETMv4/ETE: TRCIDR0 bits, q_every;
				      ETMv2: q is miss_every */
};

/* ETMv3 (IHI 0014Q 3.5.1; digest etmv3.md 1): ETMCR[15:14] context ID
 * size, [12] cycle-accurate, [28] timestamps, [8] branch output;
 * ETMIDR[20] the alternative branch encoding. */
static const struct preset etm3_presets[] = {
	{ "default", 0x0000C000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "cycle-accurate", 0x00001000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "timestamps", 0x10000000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "branch-output", 0x00000100, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "alt-branch", 0, 0x00100000, 0, 0, 0, 0, 0, 0, 0, 0 },
	/* ETMCR[3:2]: data address and value tracing (IHI 0014Q 7.4) */
	{ "data", 0x0000000C, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "data-ooo", 0x0000000C, 0, ETM3_ENC_OOO, 0, 0, 0, 0, 0, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

/* PTM (digest ptm.md 1): ETMCR[15:14] context ID size, [12]
 * cycle-accurate, [28] timestamps, [8] branch broadcast, [29] return
 * stack, [30] VMID. */
static const struct preset ptm_presets[] = {
	{ "default", 0x0000C000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "cycle-accurate", 0x00001000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "timestamps", 0x10000000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "branch-broadcast", 0x00000100, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "return-stack", 0x20000000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "vmid", 0x40000000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

/* ETMv2 (IHI 0014Q 3.5.1; digest etmv2.md 1): ETMCR[15:14] context ID
 * size, [12] cycle-accurate, [8] branch output, [3:2] data address and
 * value; "phantoms": folded direct branches (docs/etmv2.md 2);
 * "load-miss": data value trace with every 4th load a load miss. */
static const struct preset etm2_presets[] = {
	{ "default", 0x0000C000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "cycle-accurate", 0x00001000, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "branch-output", 0x00000100, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "data", 0x0000000C, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "phantoms", 0, 0, ETM2_ENC_PHANTOMS, 0, 0, 0, 0, 0, 0, 0 },
	{ "load-miss", 0x00000004, 0, 0, 0, 0, 0, 0, 0, 0, 4 },
	{ NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

/* ETMv4/ETE (digest etmv4-ete.md, TRCCONFIGR): [4] CCI cycle counting,
 * [6] context ID, [11] timestamps; "spec": TRCIDR8.MAXSPEC 16 with 8 P0
 * elements left uncommitted and mis-speculation synthesized; "q":
 * TRCIDR0.QSUPP [16:15] 0b11 and TRCCONFIGR.QE [14:13] 0b01, Q elements
 * with instruction counts (digest 6, U13), every 5th run a Q. */
static const struct preset etm4_presets[] = {
	{ "default", 0, 0, 0, 0x00000040, 0, 0, 0, 0, 0, 0 },
	{ "cycles", 0, 0, 0, 0x00000010, 0, 0, 0, 0, 0, 0 },
	{ "timestamps", 0, 0, 0, 0x00000800, 0, 0, 0, 0, 0, 0 },
	{ "spec", 0, 0, 0, 0, 16, 8, 7, 11, 0, 0 },
	{ "q", 0, 0, 0, 0x00002000, 0, 0, 0, 0, 0x00018000, 5 },
	{ NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static int apply_presets(const struct encode_run *r,
			 const struct preset *table, struct preset *sum)
{
	char list[256], *save = NULL;

	memset(sum, 0, sizeof(*sum));
	snprintf(list, sizeof(list), "default,%s", r->preset ? r->preset : "");
	for (char *name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		const struct preset *p = table;

		while (p->name && strcmp(p->name, name))
			p++;
		if (!p->name)
			return -1;
		sum->cr |= p->cr;
		sum->idr |= p->idr;
		sum->enc_flags |= p->enc_flags;
		sum->configr |= p->configr;
		if (p->maxspec) {
			sum->maxspec = p->maxspec;
			sum->depth = p->depth;
			sum->misp = p->misp;
			sum->cancel = p->cancel;
		}
		sum->idr0 |= p->idr0;
		if (p->q)
			sum->q = p->q;
	}
	return 0;
}

/* ETMv3: the registers of TC2's ETMv3.5 (Cortex-A7) with the presets'
 * bits; the encoder, and the source's .ini. */
static int setup_etm3(struct encode_run *r)
{
	struct etm3_enc_config cfg;
	struct etm3_enc *e;
	struct preset p;
	int err;

	if (apply_presets(r, etm3_presets, &p))
		return unknown_preset(r, "default, cycle-accurate, timestamps, "
				      "branch-output, alt-branch, data, "
				      "data-ooo");
	etm3_enc_config_init(&cfg);
	cfg.etmcr = reg_or(r, reg_etmcr, p.cr);
	cfg.etmidr = reg_or(r, reg_etmidr, 0x410CF250u | p.idr);
	cfg.etmccer = reg_or(r, reg_etmccer, 0x344008F2u);
	cfg.flags |= p.enc_flags;
	if (r->have_sync)
		cfg.sync_period = r->sync_period;
	r->m3 = cfg;
	err = etm3_enc_alloc(&e, &cfg, encoder_sink, r);
	if (err)
		return encoder_error(err);
	r->ops = (struct enc_ops){ e, e3_put, e3_finish, e3_free };
	r->regs[0] = (struct ini_reg){ "ETMCR(0x000)", cfg.etmcr };
	r->regs[1] = (struct ini_reg){ "ETMIDR(0x079)", cfg.etmidr };
	r->regs[2] = (struct ini_reg){ "ETMCCER(0x07A)", cfg.etmccer };
	r->regs[3] = (struct ini_reg){ "ETMTRACEIDR(0x080)", r->trace_id };
	r->nregs = 4;
	r->source_type = "ETM3.5";
	return 0;
}

/* PTM: the registers of TC2's PTM 1.1 (Cortex-A15: timestamps 64-bit
 * binary, return stack, Virtualization Extensions, no DMB/DSB waypoints)
 * with the presets' bits; the encoder, and the source's .ini. */
static int setup_ptm(struct encode_run *r)
{
	struct ptm_enc_config cfg;
	struct ptm_enc *e;
	struct preset p;
	int err;

	if (apply_presets(r, ptm_presets, &p))
		return unknown_preset(r, "default, cycle-accurate, timestamps, "
				      "branch-broadcast, return-stack, vmid");
	ptm_enc_config_init(&cfg);
	cfg.etmcr = reg_or(r, reg_etmcr, p.cr);
	cfg.etmidr = reg_or(r, reg_etmidr, 0x411CF312u);
	cfg.etmccer = reg_or(r, reg_etmccer, 0x34C01AC2u);
	if (r->have_sync)
		cfg.sync_period = r->sync_period;
	r->mp = cfg;
	err = ptm_enc_alloc(&e, &cfg, encoder_sink, r);
	if (err)
		return encoder_error(err);
	r->ops = (struct enc_ops){ e, ep_put, ep_finish, ep_free };
	r->regs[0] = (struct ini_reg){ "ETMCR(0x000)", cfg.etmcr };
	r->regs[1] = (struct ini_reg){ "ETMIDR(0x079)", cfg.etmidr };
	r->regs[2] = (struct ini_reg){ "ETMCCER(0x07A)", cfg.etmccer };
	r->regs[3] = (struct ini_reg){ "ETMTRACEIDR(0x080)", r->trace_id };
	r->nregs = 4;
	r->source_type = "PTM1.1";
	if (((cfg.etmidr >> 4) & 0xf) == 0)
		r->source_type = "PTM1.0";
	return 0;
}

/* ETMv2: an ETMv2 (ETMIDR 0x41012100: Arm, ETMv2.2) with the presets'
 * bits and ETMCR[6:4] from the port width; the encoder, the capture
 * writer behind it, and the source's .ini (docs/etmv2-capture.md). */
static int setup_etm2(struct encode_run *r)
{
	static const uint8_t size_code[17] = { [4] = 0, [8] = 1, [16] = 2 };
	struct etm2_enc_config cfg;
	struct etm2_config_info info;
	struct etm2_cap_info ci;
	struct preset p;
	unsigned width = r->port_width ? r->port_width : 8;
	int err;

	if (apply_presets(r, etm2_presets, &p))
		return unknown_preset(r, "default, cycle-accurate, "
				      "branch-output, data, phantoms, "
				      "load-miss");
	etm2_enc_config_init(&cfg);
	cfg.etm.etmcr = reg_or(r, reg_etmcr, p.cr |
			       (uint32_t)size_code[width]
				       << ETM2_ETMCR_PORT_SIZE_SHIFT);
	/* ETMv1.3 (ETMIDR[11:8] = 0, [7:4] = 3: reason 4 and context IDs
	 * need v1.2 on) or ETMv2.2; the version as the decoder takes it:
	 * --etm-version, else ETMIDR's */
	cfg.etm.version = (uint8_t)r->etm_version;
	cfg.etm.etmidr = reg_or(r, reg_etmidr, r->etm_version == 1 ?
				0x41000030u : 0x41012100u);
	err = etm2_config_decode(&cfg.etm, &info);
	if (!err && info.version == 1 &&
	    (width == 16 || (p.enc_flags & ETM2_ENC_PHANTOMS) || p.q)) {
		cli_error("ETMv1 is encoded on 4- and 8-bit ports, without "
			  "the phantoms and load-miss presets (docs/etmv2.md "
			  "7b: 16-bit ETMv1 ports are not covered; ETMv1 has "
			  "no phantoms, no load misses)");
		return cli_exit_usage;
	}
	cfg.etm.port_width = (uint8_t)width;
	cfg.flags = p.enc_flags;
	cfg.fifo_depth = r->fifo_depth;
	cfg.miss_every = p.q;
	if (r->have_sync)
		cfg.sync_period = r->sync_period;
	r->m2 = cfg;
	memset(&ci, 0, sizeof(ci));
	ci.etmcr = cfg.etm.etmcr;
	ci.etmidr = cfg.etm.etmidr;
	ci.has_etmcr = ci.has_etmidr = 1;
	ci.version = err ? 2 : info.version;
	ci.port_width = (uint8_t)width;
	ci.port_mode = etm2_port_normal;
	ci.half_rate = !!(cfg.etm.etmcr & ETM2_ETMCR_HALF_RATE);
	err = etm2_enc_alloc(&r->e2, &cfg, e2_cycles, r);
	if (err)
		return encoder_error(err);
	err = etm2_cap_writer_alloc(&r->capw, r->cap_text ? etm2_cap_text :
				    etm2_cap_binary, &ci, &cfg.etm,
				    encoder_sink, r);
	if (err) {
		e2_free(r);
		return encoder_error(err);
	}
	r->ops = (struct enc_ops){ r, e2_put, e2_finish, e2_free };
	r->regs[0] = (struct ini_reg){ "ETMCR(0x000)", cfg.etm.etmcr };
	r->regs[1] = (struct ini_reg){ "ETMIDR(0x079)", cfg.etm.etmidr };
	r->nregs = 2;
	r->source_type = ci.version == 1 ? "ETM1" : "ETM2";
	return 0;
}

/* ETMv4: the ETMv4.0 of Arm's Juno r1 (its snapshots' registers); ETE:
 * the encoder's defaults (Arm FVP's ETE 1.0). */
static int setup_etm4(struct encode_run *r)
{
	struct ete_enc_config cfg;
	struct ete_enc *e;
	struct preset p;
	int err;

	if (apply_presets(r, etm4_presets, &p))
		return unknown_preset(r, "default, cycles, timestamps, spec, q");
	ete_enc_config_init(&cfg);
	if (r->proto == etmkit_proto_etmv4) {
		cfg.etm.flags &= ~ETM4_CFG_ETE;
		cfg.etm.trcidr0 = 0x28000EA1u;
		cfg.etm.trcidr1 = 0x4100F403u;
		cfg.etm.trcidr2 = 0x00000488u;
		cfg.etm.trcdevarch = 0;
	}
	cfg.etm.trcconfigr = reg_or(r, reg_trcconfigr, p.configr);
	cfg.etm.trcidr0 = reg_or(r, reg_trcidr0, cfg.etm.trcidr0 | p.idr0);
	cfg.etm.trcidr1 = reg_or(r, reg_trcidr1, cfg.etm.trcidr1);
	cfg.etm.trcidr2 = reg_or(r, reg_trcidr2, cfg.etm.trcidr2);
	cfg.etm.trcidr8 = reg_or(r, reg_trcidr8, p.maxspec);
	cfg.etm.trcdevarch = reg_or(r, reg_trcdevarch, cfg.etm.trcdevarch);
	cfg.spec_depth = r->have_depth ? r->spec_depth : p.depth;
	cfg.mispredict_every = r->have_misp ? r->misp_every : p.misp;
	cfg.cancel_every = r->have_cancel ? r->cancel_every : p.cancel;
	cfg.q_every = r->have_q ? r->q_every : p.q;
	if (r->have_sync)
		cfg.sync_period = r->sync_period;
	r->m4 = cfg;
	err = ete_enc_alloc(&e, &cfg, encoder_sink, r);
	if (err)
		return encoder_error(err);
	r->ops = (struct enc_ops){ e, e4_put, e4_finish, e4_free };
	/* Offsets as the Juno snapshots write them */
	r->regs[0] = (struct ini_reg){ "TRCCONFIGR(0x004)", cfg.etm.trcconfigr };
	r->regs[1] = (struct ini_reg){ "TRCTRACEIDR(0x010)", r->trace_id };
	r->regs[2] = (struct ini_reg){ "TRCIDR0(0x078)", cfg.etm.trcidr0 };
	r->regs[3] = (struct ini_reg){ "TRCIDR1(0x079)", cfg.etm.trcidr1 };
	r->regs[4] = (struct ini_reg){ "TRCIDR2(0x07A)", cfg.etm.trcidr2 };
	r->regs[5] = (struct ini_reg){ "TRCIDR8(0x060)", cfg.etm.trcidr8 };
	r->nregs = 6;
	if (r->proto == etmkit_proto_ete)
		r->regs[r->nregs++] = (struct ini_reg){ "TRCDEVARCH(0x3EE)",
							cfg.etm.trcdevarch };
	r->source_type = r->proto == etmkit_proto_ete ? "ETE" : "ETM4";
	return 0;
}

int encode_setup(struct encode_run *r)
{
	if (r->proto == etmkit_proto_ptm)
		return setup_ptm(r);
	if (r->proto == etmkit_proto_etmv2)
		return setup_etm2(r);
	return r->proto == etmkit_proto_etmv3 ? setup_etm3(r) : setup_etm4(r);
}
