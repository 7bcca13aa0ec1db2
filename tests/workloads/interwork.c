/* Workload (AArch32 only): A32 and T32 functions calling each other
 * (BLX, BX), with IT blocks in the Thumb code. Build with -marm. */
#include <unistd.h>

#if defined(__arm__)
#define THUMB __attribute__((target("thumb"), noinline))
#define ARM __attribute__((target("arm"), noinline))
#else
#define THUMB __attribute__((noinline))
#define ARM __attribute__((noinline))
#endif

THUMB static int t_scale(int x)
{
	return x > 3 ? x * 2 : x + 1; /* ITE GT */
}

ARM static int a_step(int x)
{
	return t_scale(x) + 1;
}

THUMB static int t_loop(int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++)
		s += a_step(i);
	return s;
}

int main(void)
{
	int s = t_loop(6);

	write(1, s == 34 ? "interwork ok\n" : "interwork BAD\n",
	      s == 34 ? 13 : 14);
	return s != 34;
}
