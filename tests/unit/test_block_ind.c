/* Unit tests of the block cache's indirect-branch target guesses
 * (src/flow/block.h: ind[], flow_ind_note(), flow_ind_guess()): a block
 * remembers the last FLOW_IND targets a lookup found, the oldest dropped,
 * and a guess is the block of the whole key (address, instruction set,
 * memory space) or nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "flow/block.h"

/* A block of key @addr, @isa, @space, nothing else set. */
static struct flow_block *block(uint64_t addr, uint8_t isa, uint8_t space)
{
	struct flow_block *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	b->range.addr = b->start = addr;
	b->isa = isa;
	b->space = space;
	return b;
}

/* FLOW_IND + 1 targets noted: the last FLOW_IND are guessed, the first
 * is not; a key unknown, or differing in instruction set or memory
 * space, is guessed as nothing. */
static void test_last_targets(void **state)
{
	struct flow_block *f = block(0x1000, etmkit_isa_a64, 0);
	struct flow_block *t[FLOW_IND + 1];

	(void)state;
	assert_null(flow_ind_guess(f, 0x2000, etmkit_isa_a64, 0));
	for (unsigned i = 0; i <= FLOW_IND; i++) {
		t[i] = block(0x2000 + 0x40 * i, etmkit_isa_a64, 1);
		flow_ind_note(f, t[i]);
	}
	assert_null(flow_ind_guess(f, 0x2000, etmkit_isa_a64, 1));
	for (unsigned i = 1; i <= FLOW_IND; i++)
		assert_ptr_equal(flow_ind_guess(f, t[i]->start,
						etmkit_isa_a64, 1), t[i]);
	assert_null(flow_ind_guess(f, t[FLOW_IND]->start, etmkit_isa_arm, 1));
	assert_null(flow_ind_guess(f, t[FLOW_IND]->start, etmkit_isa_a64, 0));
	assert_null(flow_ind_guess(f, 0x1234, etmkit_isa_a64, 1));
	for (unsigned i = 0; i <= FLOW_IND; i++)
		free(t[i]);
	free(f);
}

/* Noting the latest target again changes nothing: the others are kept. */
static void test_same_target(void **state)
{
	struct flow_block *f = block(0x1000, etmkit_isa_a64, 0);
	struct flow_block *a = block(0x2000, etmkit_isa_a64, 0);
	struct flow_block *b = block(0x3000, etmkit_isa_a64, 0);

	(void)state;
	flow_ind_note(f, a);
	flow_ind_note(f, b);
	for (unsigned i = 0; i < FLOW_IND; i++)
		flow_ind_note(f, b);
	assert_ptr_equal(flow_ind_guess(f, 0x2000, etmkit_isa_a64, 0), a);
	assert_ptr_equal(flow_ind_guess(f, 0x3000, etmkit_isa_a64, 0), b);
	free(a);
	free(b);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_targets),
		cmocka_unit_test(test_same_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
