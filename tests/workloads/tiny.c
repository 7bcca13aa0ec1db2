/* Workload for test data: freestanding (no libc), so its whole QEMU log
 * is a few dozen blocks that can be checked by hand. A function-pointer
 * call, a loop, an IT block (Thumb) / predication (A32), A32 <-> T32
 * interworking on AArch32, and two system calls (write, exit).
 * Build: -O1 -static -nostdlib -ffreestanding (-marm on AArch32). */
#if defined(__aarch64__)
#define SYS_write 64
#define SYS_exit 93
static long sys3(long n, long a, long b, long c)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2)
			 : "memory");
	return x0;
}
#define THUMB __attribute__((noinline))
#else
#define SYS_write 4
#define SYS_exit 1
static long sys3(long n, long a, long b, long c)
{
	register long r7 __asm__("r7") = n;
	register long r0 __asm__("r0") = a;
	register long r1 __asm__("r1") = b;
	register long r2 __asm__("r2") = c;

	__asm__ volatile("svc #0" : "+r"(r0) : "r"(r7), "r"(r1), "r"(r2)
			 : "memory");
	return r0;
}
#define THUMB __attribute__((target("thumb"), noinline))
#endif

static int twice(int x) { return 2 * x; }
static int inc(int x) { return x + 1; }
static int (*volatile fns[2])(int) = { twice, inc };

THUMB int tsel(int x)
{
	return x > 2 ? x - 2 : x + 5; /* Thumb: ITE GT */
}

void _start(void)
{
	int s = 0, i;

	for (i = 0; i < 3; i++)
		s += fns[i & 1](i);
	s += tsel(s) + tsel(1);
	sys3(SYS_write, 1, (long)"ok\n", 3);
	sys3(SYS_exit, s == 16 ? 0 : 1, 0, 0);
	for (;;)
		;
}
