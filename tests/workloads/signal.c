/* Workload: a signal handler (raise -> kill system call, the handler runs
 * on the way back, then rt_sigreturn). The importer shows gaps there. */
#include <signal.h>
#include <unistd.h>

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	hits += sig == SIGUSR1;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	raise(SIGUSR1);
	write(1, hits == 2 ? "signal ok\n" : "signal BAD\n", hits == 2 ? 10 : 11);
	return hits != 2;
}
