/* Stand-in for the ETMv2 packet decoder (etm2_pkt_*, helper branch e2pkt)
 * until it is merged: the flow tests feed packet records directly
 * (etm2_flow_feed_records()), so all the flow decoder needs of a packet
 * decoder is one that has nothing to say. Not part of the library. */
#include <stdlib.h>

#include "etmkit/etm2.h"

struct etm2_pkt_decoder {
	int unused;
};

int etm2_pkt_alloc(struct etm2_pkt_decoder **dec,
		   const struct etm2_config *cfg)
{
	(void)cfg;
	*dec = calloc(1, sizeof(**dec));
	return *dec ? 0 : -etmkit_err_nomem;
}

void etm2_pkt_free(struct etm2_pkt_decoder *dec)
{
	free(dec);
}

int etm2_pkt_feed(struct etm2_pkt_decoder *dec,
		  const struct etm2_cycle *cycles, size_t n, uint64_t first)
{
	(void)dec, (void)cycles, (void)n, (void)first;
	return 0;
}

int etm2_pkt_finish(struct etm2_pkt_decoder *dec)
{
	(void)dec;
	return 0;
}

int etm2_pkt_next(struct etm2_pkt_decoder *dec, struct etm2_packet *pkts,
		  size_t max)
{
	(void)dec, (void)pkts, (void)max;
	return -etmkit_err_eos;
}

int etm2_pkt_gap(struct etm2_pkt_decoder *dec)
{
	(void)dec;
	return 0;
}

void etm2_pkt_reset(struct etm2_pkt_decoder *dec)
{
	(void)dec;
}

int etm2_pkt_synced(const struct etm2_pkt_decoder *dec)
{
	(void)dec;
	return 0;
}
