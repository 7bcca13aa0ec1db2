/* Workload for speed measurements: a longer run of mixed code (sorting,
 * hashing, calls through pointers). ITER in the environment scales it. */
#include <stdlib.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	static int v[2000];
	const char *it = getenv("ITER");
	int iters = it ? atoi(it) : 20, i, k;
	unsigned h = 2166136261u;

	for (k = 0; k < iters; k++) {
		for (i = 0; i < 2000; i++)
			v[i] = (int)((i * 7919u + (unsigned)k * 104729u) % 10007u);
		qsort(v, 2000, sizeof v[0], cmp);
		for (i = 0; i < 2000; i++)
			h = (h ^ (unsigned)v[i]) * 16777619u;
	}
	write(1, "busy done\n", 10);
	return (int)(h & 0) ;
}
