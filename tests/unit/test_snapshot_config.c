/* Unit tests of the snapshot reader: configurations read from a device's
 * registers (snapshot_etm3_config, snapshot_ptm_config,
 * snapshot_etm4_config) and the protocol a device speaks, on small
 * snapshots written at run time and on every ETMv4/ETE device of the shared
 * captures (skipped without ../shared, failed without it under CI=true).
 * Moved from test_snapshot.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etmkit/snapshot.h"
#include "unit/snapshot_test_util.h"


static void test_missing_etm3_register(void **state)
{
	static const char *const names[] = { "etm.ini" };
	const char *texts[] = { "[device]\nname=ETM_0\ntype=ETM3.5\n[regs]\n"
				"ETMCR=0x1000\nETMIDR=0x410CF250\n"
				"ETMTRACEIDR=0x10\n" };
	struct tmp_snapshot t;
	struct snapshot_diag d;
	struct etm3_config cfg;
	struct snapshot *ss;
	uint8_t id = 0;

	(void)state;
	tmp_make(&t, "[device_list]\ndevice0=etm.ini\n", names, texts, 1);
	ss = tmp_open_ok(&t);
	assert_int_equal(snapshot_etm3_config(snapshot_device_at(ss, 0), &cfg,
					      &id, &d),
			 -etmkit_err_format);
	assert_ends_with(d.path, "/etm.ini");
	assert_contains(d.message, "ETMCCER");
	snapshot_free(ss);
}

/* ---- PTM devices ---------------------------------------------------------- */

/* The protocol of ETMv3-family devices: the type's word (PTM1.0, PTM1.1,
 * PFT1.0, PFT1.1, any case), and ETMIDR[11:8] = 3 (IHI 0035B 3.16.28: PFT)
 * whatever the type says; ETMIDR[11:8] = 2 under an ETM3 type stays
 * ETMv3. Each device's registers through snapshot_ptm_config(). */
static void test_ptm_protocol(void **state)
{
	static const char *const names[] = { "a.ini", "b.ini", "c.ini",
					     "d.ini", "e.ini" };
	const char *texts[] = {
		"[device]\nname=P0\ntype=PTM1.0\n[regs]\nETMCR=0x10001000\n"
		"ETMIDR(0x079)=0x411CF301\nETMCCER=0x8EA\nETMTRACEIDR=0x90\n",
		"[device]\nname=P1\ntype=pft1.1\n[regs]\nETMCR=1\n"
		"ETMIDR=0x411CF312\nETMCCER=2\nETMTRACEIDR=0x14\n",
		/* a PTM whose tool called it an ETM */
		"[device]\nname=P2\ntype=ETM3.5\n[regs]\nETMCR=1\n"
		"ETMIDR=0x411CF312\nETMCCER=2\nETMTRACEIDR=0x15\n",
		"[device]\nname=E3\ntype=ETM3.5\n[regs]\nETMCR=1\n"
		"ETMIDR=0x410CF250\nETMCCER=2\nETMTRACEIDR=0x16\n",
		/* the type alone, no register to say otherwise */
		"[device]\nname=P4\ntype=PTM1.1\n" };
	static const char top[] = "[device_list]\nd0=a.ini\nd1=b.ini\n"
				  "d2=c.ini\nd3=d.ini\nd4=e.ini\n";
	struct tmp_snapshot t;
	struct snapshot_diag d;
	struct ptm_config cfg;
	struct snapshot *ss;
	uint8_t id = 0;

	(void)state;
	tmp_make(&t, top, names, texts, 5);
	ss = tmp_open_ok(&t);
	assert_int_equal(snapshot_device_protocol(snapshot_find_device(ss,
				"P0")), etmkit_proto_ptm);
	assert_int_equal(snapshot_device_protocol(snapshot_find_device(ss,
				"P1")), etmkit_proto_ptm);
	assert_int_equal(snapshot_device_protocol(snapshot_find_device(ss,
				"P2")), etmkit_proto_ptm);
	assert_int_equal(snapshot_device_protocol(snapshot_find_device(ss,
				"E3")), etmkit_proto_etmv3);
	assert_int_equal(snapshot_device_protocol(snapshot_find_device(ss,
				"P4")), etmkit_proto_ptm);

	memset(&cfg, 0xAA, sizeof(cfg));
	assert_int_equal(snapshot_ptm_config(snapshot_find_device(ss, "P0"),
					     &cfg, &id, &d), 0);
	assert_string_equal(d.message, "");
	assert_int_equal(cfg.size, sizeof(cfg));
	assert_int_equal(cfg.etmcr, 0x10001000);
	assert_int_equal(cfg.etmidr, 0x411CF301);
	assert_int_equal(cfg.etmccer, 0x8EA);
	assert_int_equal(cfg.flags, 0);
	assert_int_equal(id, 0x10);            /* ETMTRACEIDR[6:0] of 0x90 */
	assert_int_equal(snapshot_ptm_config(snapshot_find_device(ss, "P2"),
					     &cfg, &id, NULL), 0);
	assert_int_equal(cfg.etmidr, 0x411CF312);
	assert_int_equal(id, 0x15);

	id = 0x55;
	assert_int_equal(snapshot_ptm_config(snapshot_find_device(ss, "P4"),
					     &cfg, &id, &d),
			 -etmkit_err_format);
	assert_contains(d.message, "ETMCR");
	assert_contains(d.message, "P4");
	assert_int_equal(id, 0x55);            /* untouched on failure */
	assert_int_equal(snapshot_ptm_config(NULL, &cfg, &id, &d),
			 -etmkit_err_invalid);
	assert_int_equal(snapshot_ptm_config(snapshot_find_device(ss, "P0"),
					     NULL, &id, &d),
			 -etmkit_err_invalid);
	assert_int_equal(snapshot_ptm_config(snapshot_find_device(ss, "P0"),
					     &cfg, NULL, NULL),
			 -etmkit_err_invalid);
	snapshot_free(ss);
}

/* ---- ETMv4 and ETE devices ------------------------------------------------ */

/* An ETMv4.1 with offsets on its register names (as DS-5 writes them), an
 * ETE with bare names, and a device of a protocol this version does not
 * know. */
static const char etm41_ini[] =
	"[device]\nname=ETM_A\nclass=trace_source\ntype=ETM4.1\n[regs]\n"
	"TRCCONFIGR(id:0x4)=0x00000001\nTRCTRACEIDR(id:0x10)=0x00000090\n"
	"TRCIDR8(id:0x60)=0x00000002\nTRCIDR9(id:0x61)=9\n"
	"TRCIDR10(id:0x62)=10\nTRCIDR11(id:0x63)=11\nTRCIDR12(id:0x64)=12\n"
	"TRCIDR13(id:0x65)=13\nTRCIDR0(id:0x78)=0x08000CA1\n"
	"TRCIDR1(id:0x79)=0x4200F410\nTRCIDR2(id:0x7A)=0x20001088\n"
	"TRCACVR0(id:0x100,size:64)=0xFFFFFFFFFFFFFFFF\n";
static const char ete_ini[] =
	"[device]\nname=ETE_B\nclass=trace_source\ntype=ete\n[regs]\n"
	"trcconfigr=0x1\nTRCTRACEIDR=0x2\nTRCDEVARCH=0x47705a13\n"
	"TRCIDR0=0x8000aa1\nTRCIDR1=0x4100fff0\nTRCIDR2=0xc0001088\n"
	"TRCIDR8=0x000\n";
static const char etm4_top[] = "[device_list]\nd0=a.ini\nd1=b.ini\nd2=c.ini\n";

static void test_etm4_ete_config(void **state)
{
	static const char *const names[] = { "a.ini", "b.ini", "c.ini" };
	const char *texts[] = { etm41_ini, ete_ini,
				"[device]\nname=STM_C\ntype=STM500\n" };
	const struct snapshot_device *a, *b;
	struct tmp_snapshot t;
	struct snapshot_diag d;
	struct etm4_config cfg;
	struct snapshot *ss;
	uint8_t id = 0;

	(void)state;
	tmp_make(&t, etm4_top, names, texts, 3);
	ss = tmp_open_ok(&t);
	a = snapshot_find_device(ss, "ETM_A");
	b = snapshot_find_device(ss, "ETE_B");
	assert_int_equal(snapshot_device_protocol(a), etmkit_proto_etmv4);
	assert_int_equal(snapshot_device_protocol(b), etmkit_proto_ete);
	assert_int_equal(snapshot_device_protocol(
				 snapshot_find_device(ss, "STM_C")),
			 etmkit_proto_none);

	memset(&cfg, 0xAA, sizeof(cfg));
	assert_int_equal(snapshot_etm4_config(a, &cfg, &id, &d), 0);
	assert_string_equal(d.message, "");
	assert_int_equal(cfg.size, sizeof(cfg));
	assert_int_equal(cfg.trcidr0, 0x08000CA1);
	assert_int_equal(cfg.trcidr1, 0x4200F410);
	assert_int_equal(cfg.trcidr2, 0x20001088);
	assert_int_equal(cfg.trcidr8, 2);
	assert_int_equal(cfg.trcidr9, 9);
	assert_int_equal(cfg.trcidr10, 10);
	assert_int_equal(cfg.trcidr11, 11);
	assert_int_equal(cfg.trcidr12, 12);
	assert_int_equal(cfg.trcidr13, 13);
	assert_int_equal(cfg.trcconfigr, 1);
	assert_int_equal(cfg.trcdevarch, 0);   /* optional, absent */
	assert_int_equal(cfg.flags, 0);
	assert_int_equal(id, 0x10);            /* TRCTRACEIDR[6:0] of 0x90 */

	memset(&cfg, 0xAA, sizeof(cfg));
	assert_int_equal(snapshot_etm4_config(b, &cfg, &id, NULL), 0);
	assert_int_equal(cfg.trcidr0, 0x8000aa1);
	assert_int_equal(cfg.trcidr1, 0x4100fff0);
	assert_int_equal(cfg.trcidr2, 0xc0001088);
	assert_int_equal(cfg.trcidr8, 0);
	assert_int_equal(cfg.trcidr9, 0);      /* optional: 0 */
	assert_int_equal(cfg.trcidr13, 0);
	assert_int_equal(cfg.trcdevarch, 0x47705a13);
	assert_int_equal(cfg.trcconfigr, 1);
	assert_int_equal(cfg.flags, ETM4_CFG_ETE);
	assert_int_equal(id, 2);

	assert_int_equal(snapshot_etm4_config(NULL, &cfg, &id, &d),
			 -etmkit_err_invalid);
	assert_int_equal(snapshot_etm4_config(a, NULL, &id, &d),
			 -etmkit_err_invalid);
	assert_int_equal(snapshot_etm4_config(a, &cfg, NULL, NULL),
			 -etmkit_err_invalid);
	snapshot_free(ss);
}

/* One damaged ETE device: register @bad is missing (if @text lacks it) or
 * too wide; the error names the file and the register. */
static void etm4_reg_case(const char *text, const char *bad)
{
	static const char *const names[] = { "e.ini" };
	const char *texts[] = { text };
	struct tmp_snapshot t;
	struct snapshot_diag d;
	struct etm4_config cfg;
	struct snapshot *ss;
	uint8_t id = 0x55;

	tmp_make(&t, "[device_list]\nd0=e.ini\n", names, texts, 1);
	ss = tmp_open_ok(&t);
	assert_int_equal(snapshot_etm4_config(snapshot_device_at(ss, 0), &cfg,
					      &id, &d),
			 -etmkit_err_format);
	assert_ends_with(d.path, "/e.ini");
	assert_contains(d.message, bad);
	assert_contains(d.message, "ETE_0");
	assert_int_equal(id, 0x55);            /* untouched on failure */
	snapshot_free(ss);
}

static void test_etm4_missing_or_wide_register(void **state)
{
	static const char *const required[] = { "TRCIDR0", "TRCIDR1",
						"TRCIDR2", "TRCIDR8",
						"TRCCONFIGR", "TRCTRACEIDR" };
	char text[512];

	(void)state;
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		size_t n = (size_t)snprintf(text, sizeof(text),
			"[device]\nname=ETE_0\ntype=ETE\n[regs]\n");

		for (size_t j = 0; j < sizeof(required) / sizeof(required[0]); j++)
			if (j != i)
				n += (size_t)snprintf(text + n, sizeof(text) - n,
						      "%s=0x1\n", required[j]);
		etm4_reg_case(text, required[i]);
		/* present but wider than 32 bits */
		snprintf(text + n, sizeof(text) - n, "%s(size:64)=0x100000000\n",
			 required[i]);
		etm4_reg_case(text, required[i]);
	}
	/* optional registers are checked for width too */
	snprintf(text, sizeof(text),
		 "[device]\nname=ETE_0\ntype=ETE\n[regs]\nTRCIDR0=1\n"
		 "TRCIDR1=1\nTRCIDR2=1\nTRCIDR8=1\nTRCCONFIGR=1\n"
		 "TRCTRACEIDR=1\nTRCDEVARCH=0x1FFFFFFFF\n");
	etm4_reg_case(text, "TRCDEVARCH");
}

/* Every ETM4.x and ETE device of the shared captures: the protocol from
 * its type and a configuration from its registers. */
static void etm4_devices_below(const char *dir, int *count)
{
	char path[1024];
	struct dirent *e;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		struct snapshot *ss;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ss = open_ok(path);
		for (size_t i = 0; i < snapshot_device_count(ss); i++) {
			const struct snapshot_device *dev =
				snapshot_device_at(ss, i);
			enum etmkit_protocol p = snapshot_device_protocol(dev);
			struct snapshot_diag diag;
			struct etm4_config cfg;
			uint8_t id;

			/* STM sources (software trace) are not ETMs */
			if (strcmp(dev->klass, "trace_source") != 0 ||
			    !strcmp(dev->type, "STM"))
				continue;
			assert_true(p == etmkit_proto_etmv4 ||
				    p == etmkit_proto_ete);
			if (snapshot_etm4_config(dev, &cfg, &id, &diag) != 0)
				fail_msg("%s: %s", diag.path, diag.message);
			assert_int_equal(!!(cfg.flags & ETM4_CFG_ETE),
					 p == etmkit_proto_ete);
			(*count)++;
		}
		snapshot_free(ss);
	}
	closedir(d);
}

static void test_shared_etm4_devices(void **state)
{
	const struct snapshot_device *dev;
	struct etm4_config cfg;
	struct snapshot *ss;
	int count = 0;
	uint8_t id = 0;

	(void)state;
	need_shared();
	etm4_devices_below(ETMKIT_SHARED_DIR "/testdata/etmv4", &count);
	etm4_devices_below(ETMKIT_SHARED_DIR "/testdata/ete", &count);
	/* 10 ETMv4 and 25 ETE devices when written */
	assert_int_equal(count, 35);

	ss = open_ok(ETMKIT_SHARED_DIR "/testdata/etmv4/juno_r1_1");
	dev = snapshot_find_device(ss, "ETM_3");
	assert_non_null(dev);
	assert_int_equal(snapshot_etm4_config(dev, &cfg, &id, NULL), 0);
	assert_int_equal(cfg.trcidr0, 0x28000EA1);
	assert_int_equal(cfg.trcidr1, 0x4100F403);
	assert_int_equal(cfg.trcidr2, 0x00000488);
	assert_int_equal(cfg.trcconfigr, 0xC1);
	assert_int_equal(cfg.flags, 0);
	assert_int_equal(id, 0x13);
	snapshot_free(ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_etm3_register),
		cmocka_unit_test(test_ptm_protocol),
		cmocka_unit_test(test_etm4_ete_config),
		cmocka_unit_test(test_etm4_missing_or_wide_register),
		cmocka_unit_test(test_shared_etm4_devices),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
