/* Workload for profile-guided builds (AutoFDO, issue 16): two functions
 * that are not inlined, with a known 10:1 split of the work (1000 and 100
 * iterations of a dependent loop per call), called 200 times each from a
 * loop in main. tests/perf/autofdo_tools.py builds it with -gdwarf-4. */
#include <stdio.h>

__attribute__((noinline)) static unsigned hot(unsigned x)
{
	unsigned i;

	for (i = 0; i < 1000; i++)
		x = x * 1103515245u + 12345u + (x >> 7);
	return x;
}

__attribute__((noinline)) static unsigned cold(unsigned x)
{
	unsigned i;

	for (i = 0; i < 100; i++)
		x = x * 69069u + 1u + (x >> 5);
	return x;
}

int main(void)
{
	unsigned h = 1, c = 2;
	int k;

	for (k = 0; k < 200; k++) {
		h = hot(h + (unsigned)k);
		c = cold(c ^ (unsigned)k);
	}
	printf("hot %08x cold %08x\n", h, c);
	return 0;
}
