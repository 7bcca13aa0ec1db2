/* Built against an installed etmkit through pkg-config by tools/run-tests:
 * checks that the headers, the shared library's exports and the .pc file
 * work for a program outside the tree. Decodes seed Example 7.1's header
 * b11001000 (EEN, non-cycle-accurate) after an A-sync. */
#include <stdio.h>
#include <string.h>

#include <etmkit/etmkit.h>

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
	printf("installed etmkit %s works\n", etmkit_version());
	return 0;
}
