/* Nested inlining over two files, for check_lines.py: step() inlines
 * mix() (inlined.h) twice, and main() inlines step(). Not run. */
#include "inlined.h"

static inline __attribute__((always_inline)) unsigned step(unsigned x,
							   unsigned i)
{
	if (i & 1)
		return mix(x + i);
	return mix(x) - i;
}

volatile unsigned sink;

int main(int argc, char **argv)
{
	unsigned h = (unsigned)argc;

	(void)argv;
	for (unsigned i = 0; i < 100; i++)
		h = step(h, i);
	sink = h;
	return 0;
}
