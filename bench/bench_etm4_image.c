/* bench: one ETMv4/ETE source and its core's image, decoded beside an
 * output (bench_profile, bench_coverage; see bench_common.h). A file of
 * its own so that the benches that do not decode (bench_lines,
 * bench_locate: their default input is their own executable) link no
 * decoder. */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/image.h"
#include "etmkit/profile.h"

int bench_region_resolve(void *ctx, uint8_t id, uint64_t addr,
			 struct profile_where *w)
{
	const struct image *img = ctx;
	const struct image_region *r = image_region_find(img, IMAGE_SPACE_ANY,
							 addr);

	(void)id;
	if (!r)
		return -etmkit_err_not_found;
	w->bin = (size_t)(r - image_region_at(img, 0));
	w->vaddr = addr;
	w->lo = r->addr;
	w->hi = r->addr + r->length;
	return 0;
}

int bench_etm4_image_open(const char *who, struct bench_etm4_image *b,
			  const struct bench_options *o, const char *snap)
{
	struct image_diag idiag;

	memset(b, 0, sizeof(*b));
	if (bench_etm4_open(who, &b->src, o->shared, snap, o->id) ||
	    bench_etm4_input(who, &b->src, o->mb, &b->in))
		return -1;
	if (image_alloc(&b->img) ||
	    image_add_snapshot_device(b->img, b->src.core, &idiag)) {
		fprintf(stderr, "%s: image of %s: %s: %s\n", who,
			b->src.core->name, idiag.path, idiag.message);
		return -1;
	}
	printf("%s  input    %s, %s: %zu-byte copy x %zu = %.1f MB; image "
	       "%zu region(s)\n", who, b->src.buf->file, b->src.what,
	       b->in.copy_len, b->in.copies, (double)b->in.n / MIB,
	       image_region_count(b->img));
	etm4_flow_config_init(&b->cfg);
	b->cfg.etm = b->src.cfg;
	b->cfg.image = b->img;
	b->cfg.flags = ETM4_FLOW_RANGES;
	return 0;
}

void bench_etm4_image_close(struct bench_etm4_image *b)
{
	image_free(b->img);
	b->img = NULL;
	bench_etm4_close(&b->src);
	bench_input_free(&b->in);
}

int bench_etm4_drain(const struct etm4_flow_config *cfg, const uint8_t *buf,
		     size_t n, bench_batch_fn each, void *ctx,
		     struct bench_drained *c)
{
	struct etm4_flow_decoder *dec = NULL;
	const struct etmkit_elem *el;
	int err, k = 0;

	memset(c, 0, sizeof(*c));
	err = etm4_flow_alloc(&dec, cfg);
	if (!err)
		err = etm4_flow_feed(dec, buf, n, NULL, 0);
	for (int pass = 0; !err && pass < 2; pass++) {
		while ((k = etm4_flow_batch(dec, &el)) > 0) {
			for (int i = 0; i < k; i++) {
				const struct etmkit_elem *e = &el[i];

				if (e->kind == etmkit_elem_insn_range) {
					uint64_t runs = e->u.range.repeats +
							1ull;

					c->insns += e->u.range.count * runs;
					c->ranges_seen += runs;
					if (!c->first_addr)
						c->first_addr = e->addr;
				}
			}
			c->elems += (uint64_t)k;
			if (each && (err = each(ctx, el, k)))
				break;
		}
		if (!err && k != -etmkit_err_eos)
			err = k;
		if (!err && pass == 0)
			err = etm4_flow_finish(dec);
	}
	etm4_flow_free(dec);
	return err;
}

void bench_print_rate(const char *who, const char *label,
		      const struct bench_input *in, double best,
		      uint64_t insns, int runs)
{
	printf("%s%s%7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms  best of "
	       "%d; ", who, label, (double)in->n / MIB,
	       (double)in->n / MIB / best, (double)insns / best / 1e6,
	       best * 1e3, runs);
}
