/* Shared by the PTM encoder tests: test_ptm_enc.c (bytes worked out by
 * hand, and main()) and test_ptm_enc_rt.c (round trips through the packet
 * decoder, ptm_pkt_*, and the flow decoder, ptm_flow_*). */
#ifndef ETMKIT_TEST_PTM_ENC_H
#define ETMKIT_TEST_PTM_ENC_H

/* test_ptm_enc_rt.c */
void test_packets_random(void **state);
void test_flow_round_trips(void **state);

#endif
