/* Workload: conditional execution. On A32 the compiler predicates short
 * if/else bodies (ADDGT, MOVLE); in Thumb it emits IT blocks; on A64,
 * CSEL/CSINC and B.cond. */
#include <unistd.h>

__attribute__((noinline)) static int clampsum(const int *v, int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++) {
		int x = v[i];

		if (x > 100)
			x = 100;
		else if (x < -100)
			x = -100;
		s += x > 0 ? x : -x;
	}
	return s;
}

int main(void)
{
	static const int v[12] = { 5, -300, 200, 7, -8, 99, 101, -101, 0, 42,
				   -42, 1000 };
	int s = clampsum(v, 12);

	write(1, s == 703 ? "cond ok\n" : "cond BAD\n", s == 703 ? 8 : 9);
	return s != 703;
}
