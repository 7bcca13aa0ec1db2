/* Built against an installed etmkit through pkg-config by
 * tools/check-install (with -Wall -Wextra -Werror): checks that the
 * headers, the shared library's exports and the .pc file work for a
 * program outside the tree, and that every configuration struct has an
 * _init() (a `{ sizeof x }` initialiser fails -Wextra's
 * -Wmissing-field-initializers). Decodes seed Example 7.1's header
 * b11001000 (EEN, non-cycle-accurate) after an A-sync, directly and
 * through a session. */
#include <stdio.h>
#include <string.h>

#include <etmkit/etmkit.h>

struct got {
	int n;
	int p_header_een;
};

static int on_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		     const void *packet)
{
	const struct etm3_packet *p = packet;
	struct got *g = ctx;
	char s[17];

	(void)id;
	g->n++;
	if (proto == etmkit_proto_etmv3 && p->type == etm3_pkt_p_header &&
	    strcmp(etm3_atoms_string(&p->u.atoms, s), "EEN") == 0)
		g->p_header_een++;
	return 0;
}

/* The same bytes as a raw stream of trace ID 0x10 through a session. */
static int session_decode(const unsigned char *b, size_t n)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s;
	struct etm3_config cfg;
	struct got g = { 0, 0 };

	etmkit_session_config_init(&sc);
	sc.frames = deformat_none;
	sc.raw_id = 0x10;
	sc.on_packet = on_packet;
	sc.ctx = &g;
	if (etmkit_session_alloc(&s, &sc) < 0)
		return -1;
	etm3_config_init(&cfg);
	cfg.etmidr = 0x410cf250;
	if (etmkit_session_add_etm3(s, 0x10, &cfg) < 0 ||
	    etmkit_session_feed(s, b, n) < 0 || etmkit_session_finish(s) < 0) {
		etmkit_session_free(s);
		return -1;
	}
	etmkit_session_free(s);
	return g.n == 2 && g.p_header_een == 1 ? 0 : -1;
}

int main(void)
{
	static const unsigned char b[] = { 0, 0, 0, 0, 0, 0x80, 0xc8 };
	struct etm3_config cfg;
	struct etm3_pkt_decoder *d;
	struct etm3_packet p[4];
	char s[17];
	int n;

	etm3_config_init(&cfg);
	cfg.etmidr = 0x410cf250;
	if (etm3_pkt_alloc(&d, &cfg) < 0)
		return 1;
	etm3_pkt_feed(d, b, sizeof(b), NULL, 0);
	n = etm3_pkt_next(d, p, 4);
	etm3_pkt_free(d);
	if (n != 2 || p[1].type != etm3_pkt_p_header ||
	    strcmp(etm3_atoms_string(&p[1].u.atoms, s), "EEN") != 0) {
		fprintf(stderr, "consumer: unexpected decode\n");
		return 1;
	}
	if (session_decode(b, sizeof(b)) < 0) {
		fprintf(stderr, "consumer: unexpected session decode\n");
		return 1;
	}
	printf("installed etmkit %s works\n", etmkit_version());
	return 0;
}
