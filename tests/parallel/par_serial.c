/* Test support for the parallel decode: the serial flow decoder
 * (par_serial.h). */
#include "par_serial.h"

#include <string.h>

int par_serial_alloc(struct par_serial *s, const struct etmkit_par_config *cfg)
{
	memset(s, 0, sizeof(*s));
	s->proto = cfg->proto;
	switch (cfg->proto) {
	case etmkit_par_etm3:
		return etm3_flow_alloc(&s->d3, cfg->etm3);
	case etmkit_par_etm4:
		return etm4_flow_alloc(&s->d4, cfg->etm4);
	case etmkit_par_ptm:
		return ptm_flow_alloc(&s->dp, cfg->ptm);
	default:
		return -etmkit_err_invalid;
	}
}

void par_serial_free(struct par_serial *s)
{
	etm3_flow_free(s->d3);
	etm4_flow_free(s->d4);
	ptm_flow_free(s->dp);
	memset(s, 0, sizeof(*s));
}

int par_serial_feed(struct par_serial *s, const uint8_t *b, size_t n,
		    const uint64_t *offs, uint64_t base)
{
	if (s->d3)
		return etm3_flow_feed(s->d3, b, n, offs, base);
	if (s->d4)
		return etm4_flow_feed(s->d4, b, n, offs, base);
	return ptm_flow_feed(s->dp, b, n, offs, base);
}

int par_serial_finish(struct par_serial *s)
{
	if (s->d3)
		return etm3_flow_finish(s->d3);
	if (s->d4)
		return etm4_flow_finish(s->d4);
	return ptm_flow_finish(s->dp);
}

int par_serial_gap(struct par_serial *s)
{
	if (s->d3)
		return etm3_flow_gap(s->d3);
	if (s->d4)
		return etm4_flow_gap(s->d4);
	return ptm_flow_gap(s->dp);
}

void par_serial_reset(struct par_serial *s)
{
	if (s->d3)
		etm3_flow_reset(s->d3);
	else if (s->d4)
		etm4_flow_reset(s->d4);
	else
		ptm_flow_reset(s->dp);
}

int par_serial_batch(struct par_serial *s, const struct etmkit_elem **e)
{
	if (s->d3)
		return etm3_flow_batch(s->d3, e);
	if (s->d4)
		return etm4_flow_batch(s->d4, e);
	return ptm_flow_batch(s->dp, e);
}

void par_serial_stats(const struct par_serial *s, struct etmkit_par_stats *o)
{
	if (s->d3) {
		const struct etm3_flow_stats *t = etm3_flow_get_stats(s->d3);

		o->packets += t->packets;
		o->insns += t->insns;
		o->atoms_lost += t->atoms_lost;
	} else if (s->d4) {
		const struct etm4_flow_stats *t = etm4_flow_get_stats(s->d4);

		o->packets += t->packets;
		o->insns += t->insns;
		o->atoms_lost += t->atoms_lost;
		o->protocol_errors += t->protocol_errors;
	} else {
		const struct ptm_flow_stats *t = ptm_flow_get_stats(s->dp);

		o->packets += t->packets;
		o->insns += t->insns;
		o->atoms_lost += t->atoms_lost;
	}
}
