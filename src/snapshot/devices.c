/* etmkit: snapshot device files (src/snapshot/snapshot_internal.h).
 *
 * A device file: [device] name, class and type; [regs] NAME(offset)=value;
 * [dump...] sections, each one memory dump (file, address, length,
 * offset, space). Also what is read from a device's registers: the ETMv3
 * and the ETMv4/ETE configurations.
 */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"
#include "etmkit/image.h"
#include "common/text.h"
#include "common/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int ascii_has_prefix(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (ascii_lower((unsigned char)*s) !=
		    ascii_lower((unsigned char)*prefix))
			return 0;
	return 1;
}

/* ---- Device files -------------------------------------------------------- */

enum dev_section { dev_sec_other, dev_sec_device, dev_sec_regs, dev_sec_dump };

/* Keys of a [dump] section, as bits of dump_build.keys. */
enum {
	dump_key_file = 1u << 0,
	dump_key_address = 1u << 1,
	dump_key_length = 1u << 2,
	dump_key_offset = 1u << 3,
	dump_key_space = 1u << 4
};

struct dump_build {
	struct snapshot_dump d;
	const char *section; /* as written: "dump", "dump3", "dump.text1" */
	int line;            /* its header line */
	unsigned keys;       /* dump_key_* seen */
};

struct dev_parse {
	struct snapshot_device dev;
	int name_line;
	unsigned keys; /* bit i: dev_keys[i] seen */
	enum dev_section cur;
	struct snapshot_reg *regs;
	size_t cap_regs;
	struct dump_build *dumps;
	size_t ndumps, cap_dumps;
	/* Register names seen, for the duplicate check in linear time:
	 * open addressing, index + 1, 0 = empty (twice SS_MAX_REGS). */
	uint16_t reg_hash[2 * SS_MAX_REGS];
};

/* FNV-1a of the name, case folded: registers are case-insensitive. */
static uint32_t reg_name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint32_t)ascii_lower((unsigned char)*s)) * 16777619u;
	return h;
}

static const char *const dev_keys[3] = { "name", "class", "type" };

/* Sections "dump", "dump1", "dump.text1"...: every section whose name
 * starts with "dump" describes one memory dump, as in OpenCSD. */
static enum dev_section dev_classify(const char *section)
{
	if (ascii_casecmp(section, "device") == 0)
		return dev_sec_device;
	if (ascii_casecmp(section, "regs") == 0)
		return dev_sec_regs;
	if (ascii_has_prefix(section, "dump"))
		return dev_sec_dump;
	return dev_sec_other;
}

static int dev_section(struct ini_run *run, const char *section)
{
	struct dev_parse *dp = run->user;
	struct dump_build *p;

	dp->cur = dev_classify(section);
	if (dp->cur != dev_sec_dump)
		return 0;
	if (dp->ndumps >= SS_MAX_DUMPS)
		return ss_run_fail(run, -etmkit_err_format,
				"more than %d [dump] sections", SS_MAX_DUMPS);
	p = vec_room(dp->dumps, dp->ndumps, &dp->cap_dumps, sizeof(*p));
	if (!p)
		return ss_run_nomem(run);
	dp->dumps = p;
	p += dp->ndumps;
	memset(p, 0, sizeof(*p));
	p->line = run->section_line;
	p->section = ss_arena_strdup(&run->ld->ss->arena, section);
	if (!p->section)
		return ss_run_nomem(run);
	dp->ndumps++;
	return 0;
}

static int dev_device_key(struct ini_run *run, const char *section,
			  const char *name, const char *value)
{
	struct dev_parse *dp = run->user;
	const char **slots[] = { &dp->dev.name, &dp->dev.klass, &dp->dev.type };
	unsigned i;

	for (i = 0; i < 3; i++)
		if (ascii_casecmp(name, dev_keys[i]) == 0)
			break;
	if (i == 3)
		return 0;
	if (ss_key_once(run, &dp->keys, 1u << i, section, name))
		return run->err;
	if (i == 0) {
		dp->name_line = run->line;
		return ss_key_string(run, section, name, value, slots[i]);
	}
	*slots[i] = ss_arena_strdup(&run->ld->ss->arena, value);
	return *slots[i] ? 0 : ss_run_nomem(run);
}

/* ---- Registers: NAME, NAME(0x0OFF), NAME(id:0x4), NAME(id:0x100,size:64) */

/* inih splits "name=value" at the first '=' or ':', so a key such as
 * "PC(size:64)=0" arrives as name "PC(size", value "64)=0". Put it back
 * together in @buf and split it again at the '=' after the ')'. */
static int reg_rejoin(const char *name, const char *value, char *buf,
		      size_t size, char **key, char **val)
{
	char *close, *eq;

	if (strlen(name) + strlen(value) + 2 > size)
		return -1;
	snprintf(buf, size, "%s:%s", name, value);
	close = strchr(buf, ')');
	eq = close ? strchr(close, '=') : NULL;
	if (!eq)
		return -1;
	*eq = '\0';
	*key = ss_trim(buf);
	*val = ss_trim(eq + 1);
	return 0;
}

/* One item of the parenthesised part: "0x080" or "id:0x80" give the
 * offset; "size:64" is checked and dropped; other "tag:x" are ignored. */
static int reg_annotation(char *item, struct snapshot_reg *reg)
{
	char *colon = strchr(item, ':');
	uint64_t v;

	item = ss_trim(item);
	if (colon) {
		*colon = '\0';
		if (ascii_casecmp(ss_trim(item), "size") == 0)
			return ss_parse_u64(ss_trim(colon + 1), &v);
		if (ascii_casecmp(ss_trim(item), "id") != 0)
			return 0;
		item = ss_trim(colon + 1);
	}
	if (ss_parse_u64(item, &v) || v > UINT32_MAX || reg->has_offset)
		return -1;
	reg->offset = (uint32_t)v;
	reg->has_offset = 1;
	return 0;
}

/* Split "NAME(annotations)" in place: @key becomes NAME. */
static int reg_split(char *key, struct snapshot_reg *reg, char **annot)
{
	char *open = strchr(key, '(');
	char *close;

	*annot = NULL;
	if (open) {
		close = strchr(open, ')');
		if (!close || *ss_trim(close + 1))
			return -1;
		*open = '\0';
		*close = '\0';
		*annot = open + 1;
	}
	key = ss_trim(key);
	if (!*key || strchr(key, ')'))
		return -1;
	reg->name = key;
	return 0;
}

static int reg_annotations(struct ini_run *run, char *annot,
			   struct snapshot_reg *reg)
{
	char *save = annot;

	while (annot) {
		char *comma = strchr(annot, ',');

		if (comma)
			*comma = '\0';
		if (reg_annotation(annot, reg))
			return ss_run_fail(run, -etmkit_err_format,
					"bad register offset or size "
					"\"(%.*s)\" for register %s in [regs]",
					SS_QUOTE, save, reg->name);
		if (comma)
			*comma = ',';
		annot = comma ? comma + 1 : NULL;
	}
	return 0;
}

static int reg_add(struct ini_run *run, struct snapshot_reg *reg)
{
	struct dev_parse *dp = run->user;
	struct snapshot_reg *p;
	const size_t mask = sizeof(dp->reg_hash) / sizeof(dp->reg_hash[0]) - 1;
	size_t slot = reg_name_hash(reg->name) & mask;

	for (; dp->reg_hash[slot]; slot = (slot + 1) & mask)
		if (ascii_casecmp(dp->regs[dp->reg_hash[slot] - 1].name,
				  reg->name) == 0)
			return ss_run_fail(run, -etmkit_err_format,
					"duplicate register %s in [regs]",
					reg->name);
	if (dp->dev.nregs >= SS_MAX_REGS)
		return ss_run_fail(run, -etmkit_err_format,
				"more than %d registers in [regs]",
				SS_MAX_REGS);
	p = vec_room(dp->regs, dp->dev.nregs, &dp->cap_regs, sizeof(*p));
	if (!p)
		return ss_run_nomem(run);
	dp->regs = p;
	reg->name = ss_arena_strdup(&run->ld->ss->arena, reg->name);
	if (!reg->name)
		return ss_run_nomem(run);
	p[dp->dev.nregs++] = *reg;
	dp->reg_hash[slot] = (uint16_t)dp->dev.nregs;
	return 0;
}

static int dev_reg_key(struct ini_run *run, const char *name,
		       const char *value)
{
	char buf[1024];
	char *key = buf, *joined_val, *annot;
	const char *val = value;
	struct snapshot_reg reg;
	size_t n = strlen(name);

	memset(&reg, 0, sizeof(reg));
	if (strchr(name, '(') && !strchr(name, ')')) {
		if (reg_rejoin(name, value, buf, sizeof(buf), &key,
			       &joined_val))
			return ss_run_fail(run, -etmkit_err_format,
					"bad register name \"%.*s\" in [regs]",
					SS_QUOTE, name);
		val = joined_val;
	} else if (n < sizeof(buf)) {
		memcpy(buf, name, n + 1);
	} else {
		return ss_run_fail(run, -etmkit_err_format,
				"register name too long in [regs]");
	}
	if (reg_split(key, &reg, &annot))
		return ss_run_fail(run, -etmkit_err_format,
				"bad register name \"%.*s\" in [regs]", SS_QUOTE,
				name);
	if (annot && reg_annotations(run, annot, &reg))
		return run->err;
	if (ss_parse_u64(val, &reg.value))
		return ss_run_fail(run, -etmkit_err_format,
				"bad number \"%.*s\" for register %s in [regs]",
				SS_QUOTE, val, reg.name);
	return reg_add(run, &reg);
}

/* ---- Dumps --------------------------------------------------------------- */

static int dump_number_key(struct ini_run *run, struct dump_build *b,
			   unsigned bit, const char *name, const char *value)
{
	uint64_t v = 0;

	if (ss_key_once(run, &b->keys, bit, b->section, name) ||
	    ss_key_number(run, b->section, name, value, &v))
		return run->err;
	if (bit == dump_key_address)
		b->d.address = v;
	else if (bit == dump_key_offset)
		b->d.offset = v;
	else {
		b->d.length = v;
		b->d.has_length = 1;
	}
	return 0;
}

static int dev_dump_key(struct ini_run *run, const char *name,
			const char *value)
{
	struct dev_parse *dp = run->user;
	struct dump_build *b = &dp->dumps[dp->ndumps - 1];

	if (ascii_casecmp(name, "file") == 0) {
		if (ss_key_once(run, &b->keys, dump_key_file, b->section, name))
			return run->err;
		return ss_key_path(run, b->section, name, value, &b->d.file);
	}
	if (ascii_casecmp(name, "space") == 0) {
		uint8_t mask;

		if (ss_key_once(run, &b->keys, dump_key_space, b->section, name))
			return run->err;
		/* Checked here, where the line is known (image.h). */
		if (image_space_parse(value, &mask) != 0)
			return ss_run_fail(run, -etmkit_err_format,
					"unknown memory space \"%.*s\" for "
					"key %s in [%s]", SS_QUOTE, value,
					name, b->section);
		return ss_key_string(run, b->section, name, value, &b->d.space);
	}
	if (ascii_casecmp(name, "address") == 0)
		return dump_number_key(run, b, dump_key_address, name, value);
	if (ascii_casecmp(name, "length") == 0)
		return dump_number_key(run, b, dump_key_length, name, value);
	if (ascii_casecmp(name, "offset") == 0)
		return dump_number_key(run, b, dump_key_offset, name, value);
	return 0; /* unknown keys are left for newer readers */
}

static int dev_key(struct ini_run *run, const char *section,
		   const char *name, const char *value)
{
	struct dev_parse *dp = run->user;

	switch (dp->cur) {
	case dev_sec_device:
		return dev_device_key(run, section, name, value);
	case dev_sec_regs:
		return dev_reg_key(run, name, value);
	case dev_sec_dump:
		return dev_dump_key(run, name, value);
	default:
		return 0;
	}
}

/* After the parse: every dump needs file and address, and its bytes must
 * not run past the top of a 64-bit address space. */
static int dev_check_dumps(struct loader *ld, const char *path,
			   const struct dev_parse *dp)
{
	size_t i;

	for (i = 0; i < dp->ndumps; i++) {
		const struct dump_build *b = &dp->dumps[i];
		const char *missing = NULL;

		if (!(b->keys & dump_key_file))
			missing = "file";
		else if (!(b->keys & dump_key_address))
			missing = "address";
		if (missing)
			return ss_fail(ld->diag, -etmkit_err_format, path, b->line,
				    "missing key %s in [%s]", missing,
				    b->section);
		if (b->d.has_length && b->d.length &&
		    b->d.address > UINT64_MAX - (b->d.length - 1))
			return ss_fail(ld->diag, -etmkit_err_format, path, b->line,
				    "dump in [%s] runs past the top of memory",
				    b->section);
	}
	return 0;
}

static int dev_check(struct loader *ld, const char *path,
		     const struct dev_parse *dp)
{
	const struct snapshot *ss = ld->ss;
	size_t i;

	if (!dp->dev.name)
		return ss_fail(ld->diag, -etmkit_err_format, path, 0,
			    "missing key name in [device]");
	for (i = 0; i < ss->ndevices; i++)
		if (strcmp(ss->devices[i].name, dp->dev.name) == 0)
			return ss_fail(ld->diag, -etmkit_err_format, path,
				    dp->name_line,
				    "duplicate device name %s (also in %s)",
				    dp->dev.name,
				    ss_base_name(ss->devices[i].path));
	if (ss->ndevices >= SS_MAX_DEVICES)
		return ss_fail(ld->diag, -etmkit_err_format, path, 0,
			    "more than %d devices", SS_MAX_DEVICES);
	return dev_check_dumps(ld, path, dp);
}

/* A dump that maps no bytes: no length (or length 0, "the whole file"),
 * and a file that is empty. CoreSight Access Library snapshots write such
 * dumps; they are left out with a note. A file that cannot be examined
 * here is kept: reading it is the image's job (image.h). */
static int dump_is_empty(const struct snapshot_dump *d)
{
	struct stat st;

	if (d->has_length && d->length)
		return 0;
	return stat(d->file, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_size == 0;
}

/* Move the parsed device into the snapshot, its arrays into the arena. */
static int dev_commit(struct loader *ld, const char *path,
		      struct dev_parse *dp)
{
	struct snapshot *ss = ld->ss;
	struct snapshot_device *dev;
	struct snapshot_reg *regs = NULL;
	struct snapshot_dump *dumps = NULL;
	size_t i, n = 0;
	int rc;

	if (dp->dev.nregs &&
	    !(regs = ss_arena_alloc(&ss->arena, dp->dev.nregs * sizeof(*regs))))
		return ss_fail_nomem(ld->diag, path);
	if (dp->ndumps &&
	    !(dumps = ss_arena_alloc(&ss->arena, dp->ndumps * sizeof(*dumps))))
		return ss_fail_nomem(ld->diag, path);
	dev = vec_room(ss->devices, ss->ndevices, &ss->cap_devices,
		       sizeof(*dev));
	if (!dev)
		return ss_fail_nomem(ld->diag, path);
	ss->devices = dev;
	if (dp->dev.nregs)
		memcpy(regs, dp->regs, dp->dev.nregs * sizeof(*regs));
	for (i = 0; i < dp->ndumps; i++) {
		const struct dump_build *b = &dp->dumps[i];

		if (!dump_is_empty(&b->d)) {
			dumps[n++] = b->d;
			continue;
		}
		rc = ss_add_note(ld, snapshot_note_empty_dump, path, b->line,
			      b->section, b->d.file,
			      "dump [%s] maps no bytes: %s is empty: skipped",
			      b->section, ss_base_name(b->d.file));
		if (rc)
			return rc;
	}
	dp->dev.path = path;
	dp->dev.regs = regs;
	dp->dev.dumps = n ? dumps : NULL;
	dp->dev.ndumps = n;
	ss->devices[ss->ndevices++] = dp->dev;
	return 0;
}

int ss_load_device(struct loader *ld, const struct file_ref *ref)
{
	struct dev_parse dp;
	struct ini_run run;
	int rc;

	memset(&dp, 0, sizeof(dp));
	memset(&run, 0, sizeof(run));
	dp.dev.klass = "";
	dp.dev.type = "";
	run.ld = ld;
	run.on_section = dev_section;
	run.on_key = dev_key;
	run.user = &dp;
	rc = ss_run_file(&run, ref);
	if (rc == 0)
		rc = dev_check(ld, ref->path, &dp);
	if (rc == 0)
		rc = dev_commit(ld, ref->path, &dp);
	free(dp.regs);
	free(dp.dumps);
	return rc;
}

/* ---- Registers and protocol ---------------------------------------------- */

int snapshot_reg_value(const struct snapshot_device *dev, const char *name,
		       uint64_t *value)
{
	size_t i;

	if (!dev || !name || !value)
		return -etmkit_err_invalid;
	for (i = 0; i < dev->nregs; i++) {
		if (ascii_casecmp(dev->regs[i].name, name) == 0) {
			*value = dev->regs[i].value;
			return 0;
		}
	}
	return -etmkit_err_not_found;
}

/* docs/etmv2-capture.md "Snapshot directories": type ETM2 (ETMv2) or ETM1
 * (ETMv1), alone or followed by '.' ("ETM1.3"); not "ETM10..." (an
 * ETM10 is named by its ETMIDR, not its type). */
static unsigned etm2_type_version(const char *type)
{
	if (!type || (!ascii_has_prefix(type, "ETM2") &&
		      !ascii_has_prefix(type, "ETM1")))
		return 0;
	if (type[4] != '\0' && type[4] != '.')
		return 0;
	return type[3] == '2' ? 2 : 1;
}

enum etmkit_protocol snapshot_device_protocol(const struct snapshot_device *dev)
{
	uint64_t etmidr;

	if (!dev || !dev->type)
		return etmkit_proto_none;
	/* IHI 0035B 3.16.28: ETMIDR[11:8] = 3 names PFT, whatever the type */
	if (snapshot_reg_value(dev, "ETMIDR", &etmidr) == 0 &&
	    etmidr <= UINT32_MAX && ptm_etmidr_is_ptm((uint32_t)etmidr))
		return etmkit_proto_ptm;
	if (ascii_has_prefix(dev->type, "ETM3"))
		return etmkit_proto_etmv3;
	if (etm2_type_version(dev->type))
		return etmkit_proto_etmv2;
	if (ascii_has_prefix(dev->type, "PTM") ||
	    ascii_has_prefix(dev->type, "PFT"))
		return etmkit_proto_ptm;
	if (ascii_has_prefix(dev->type, "ETM4"))
		return etmkit_proto_etmv4;
	if (ascii_has_prefix(dev->type, "ETE"))
		return etmkit_proto_ete;
	return etmkit_proto_none;
}

/* ---- ETMv3 and PTM configuration ----------------------------------------- */

/* Read register @name of @dev into *@v as 32 bits: 0, 1 if absent (and
 * not @required), or a negated error with @diag filled. */
static int reg32(const struct snapshot_device *dev, const char *name,
		 int required, uint32_t *v, struct snapshot_diag *diag)
{
	uint64_t x;

	if (snapshot_reg_value(dev, name, &x) != 0) {
		if (!required)
			return 1;
		return ss_fail(diag, -etmkit_err_format, dev->path, 0,
			       "register %s missing in [regs] of device %s",
			       name, dev->name);
	}
	if (x > UINT32_MAX)
		return ss_fail(diag, -etmkit_err_format, dev->path, 0,
			       "register %s of device %s does not fit in 32 bits",
			       name, dev->name);
	*v = (uint32_t)x;
	return 0;
}

int snapshot_etm3_config(const struct snapshot_device *dev,
			 struct etm3_config *cfg, uint8_t *trace_id,
			 struct snapshot_diag *diag)
{
	static const char *const names[4] = { "ETMCR", "ETMIDR", "ETMCCER",
					       "ETMTRACEIDR" };
	struct snapshot_diag local;
	uint32_t v[4];
	unsigned i;

	if (!diag)
		diag = &local;
	ss_diag_clear(diag);
	if (!dev || !cfg || !trace_id)
		return ss_fail(diag, -etmkit_err_invalid, "", 0, "NULL argument");
	for (i = 0; i < 4; i++) {
		int err = reg32(dev, names[i], 1, &v[i], diag);

		if (err < 0)
			return err;
	}
	etm3_config_init(cfg);
	cfg->etmcr = v[0];
	cfg->etmidr = v[1];
	cfg->etmccer = v[2];
	/* IHI 0014Q 3.5.59: ETMTRACEIDR bits [6:0] are the trace ID. */
	*trace_id = (uint8_t)(v[3] & 0x7F);
	return 0;
}

int snapshot_ptm_config(const struct snapshot_device *dev,
			struct ptm_config *cfg, uint8_t *trace_id,
			struct snapshot_diag *diag)
{
	struct etm3_config e;
	int err;

	/* IHI 0035B 3.16: a PTM has ETMv3's four registers (ETMTRACEIDR[6:0]
	 * the trace ID, 3.16.35), read as ETMv3's are. */
	err = snapshot_etm3_config(dev, cfg ? &e : NULL, trace_id, diag);
	if (err < 0)
		return err;
	ptm_config_init(cfg);
	cfg->etmcr = e.etmcr;
	cfg->etmidr = e.etmidr;
	cfg->etmccer = e.etmccer;
	return 0;
}

/* ---- ETMv2 / ETMv1 configuration ----------------------------------------- */

int snapshot_etm2_config(const struct snapshot_device *dev,
			 struct etm2_config *cfg, struct snapshot_diag *diag)
{
	struct snapshot_diag local;
	uint32_t cr = 0, idr = 0;
	int err;

	if (!diag)
		diag = &local;
	ss_diag_clear(diag);
	if (!dev || !cfg)
		return ss_fail(diag, -etmkit_err_invalid, "", 0, "NULL argument");
	err = reg32(dev, "ETMCR", 1, &cr, diag);
	if (err < 0)
		return err;
	/* ETMv1 parts may lack ETMIDR (digest etmv2.md 1). */
	err = reg32(dev, "ETMIDR", 0, &idr, diag);
	if (err < 0)
		return err;
	etm2_config_init(cfg);
	cfg->etmcr = cr;
	cfg->etmidr = err ? 0 : idr;
	cfg->version = (uint8_t)etm2_type_version(dev->type);
	return 0;
}

/* ---- ETMv4 / ETE configuration ------------------------------------------- */

/* Register @name of @dev as 32 bits into *@v. A missing register is an
 * error if @required, else 0. */
static int etm4_reg(const struct snapshot_device *dev, const char *name,
		    int required, uint32_t *v, struct snapshot_diag *diag)
{
	uint64_t x = 0;

	if (snapshot_reg_value(dev, name, &x) != 0) {
		if (required)
			return ss_fail(diag, -etmkit_err_format, dev->path, 0,
				    "register %s missing in [regs] of device %s",
				    name, dev->name);
		x = 0;
	}
	if (x > UINT32_MAX)
		return ss_fail(diag, -etmkit_err_format, dev->path, 0,
			    "register %s of device %s does not fit in 32 bits",
			    name, dev->name);
	*v = (uint32_t)x;
	return 0;
}

int snapshot_etm4_config(const struct snapshot_device *dev,
			 struct etm4_config *cfg, uint8_t *trace_id,
			 struct snapshot_diag *diag)
{
	/* digest 6: the minimum set a packet parser needs, then the key
	 * registers of ETMv4 data and conditional trace and ETE's version. */
	struct etm4_config c;
	const struct {
		const char *name;
		uint32_t *field;
		int required;
	} regs[] = {
		{ "TRCIDR0", &c.trcidr0, 1 },
		{ "TRCIDR1", &c.trcidr1, 1 },
		{ "TRCIDR2", &c.trcidr2, 1 },
		{ "TRCIDR8", &c.trcidr8, 1 },
		{ "TRCCONFIGR", &c.trcconfigr, 1 },
		{ "TRCIDR9", &c.trcidr9, 0 },
		{ "TRCIDR10", &c.trcidr10, 0 },
		{ "TRCIDR11", &c.trcidr11, 0 },
		{ "TRCIDR12", &c.trcidr12, 0 },
		{ "TRCIDR13", &c.trcidr13, 0 },
		{ "TRCDEVARCH", &c.trcdevarch, 0 },
	};
	struct snapshot_diag local;
	uint32_t traceidr = 0;
	size_t i;
	int err;

	if (!diag)
		diag = &local;
	ss_diag_clear(diag);
	if (!dev || !cfg || !trace_id)
		return ss_fail(diag, -etmkit_err_invalid, "", 0, "NULL argument");
	etm4_config_init(&c);
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		err = etm4_reg(dev, regs[i].name, regs[i].required,
			       regs[i].field, diag);
		if (err < 0)
			return err;
	}
	err = etm4_reg(dev, "TRCTRACEIDR", 1, &traceidr, diag);
	if (err < 0)
		return err;
	if (snapshot_device_protocol(dev) == etmkit_proto_ete)
		c.flags |= ETM4_CFG_ETE;
	*cfg = c;
	/* digest 6.2: TRCTRACEIDR[6:0] is the CoreSight trace ID. */
	*trace_id = (uint8_t)(traceidr & 0x7F);
	return 0;
}
