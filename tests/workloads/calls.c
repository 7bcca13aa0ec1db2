/* Workload: calls through function pointers, a switch compiled to a jump
 * table, and recursion. */
#include <unistd.h>

typedef int (*op_fn)(int, int);

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int xor_(int a, int b) { return a ^ b; }

static op_fn volatile ops[4] = { add, sub, mul, xor_ };

__attribute__((noinline)) static int classify(int v)
{
	switch (v) { /* dense cases: a jump table at -O2 */
	case 0: return 11;
	case 1: return 23;
	case 2: return 37;
	case 3: return 41;
	case 4: return 59;
	case 5: return 61;
	case 6: return 73;
	case 7: return 89;
	default: return -1;
	}
}

__attribute__((noinline)) static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
	int acc = 1, i;

	for (i = 0; i < 40; i++)
		acc = ops[i & 3](acc, classify(i % 9)) & 0xffff;
	acc += fib(12);
	write(1, "calls done\n", 11);
	return acc == 0;
}
