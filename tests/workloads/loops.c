/* Workload: nested counted loops and a data-dependent while loop. */
#include <unistd.h>

static volatile unsigned sink;

int main(void)
{
	unsigned sum = 0, i, j, n = 27, steps = 0;

	for (i = 0; i < 200; i++)
		for (j = 0; j < i % 7; j++)
			sum += i * j;
	while (n != 1) { /* Collatz: branches both ways */
		n = (n & 1) ? 3 * n + 1 : n / 2;
		steps++;
	}
	sink = sum + steps;
	write(1, steps == 111 ? "loops ok\n" : "loops BAD\n", steps == 111 ? 9 : 10);
	return steps != 111;
}
