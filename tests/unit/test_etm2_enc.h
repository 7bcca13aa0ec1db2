/* Shared by the ETMv2 encoder tests: test_etm2_enc.c (cycles worked out by
 * hand, and main()) and test_etm2_enc_rt.c (round trips through the packet
 * decoder, etm2_pkt_*). */
#ifndef ETMKIT_TEST_ETM2_ENC_H
#define ETMKIT_TEST_ETM2_ENC_H

/* test_etm2_enc_rt.c */
void test_packets_random(void **state);
void test_overflow_random(void **state);
void test_deep_fifo(void **state);
void test_captures_real_code(void **state);
void test_v1_random(void **state);
void test_v1_overflow_random(void **state);
void test_v1_captures_real_code(void **state);

#endif
