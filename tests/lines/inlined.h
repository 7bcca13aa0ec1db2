/* Inlined from a header: call sites in another file (check_lines.py). */
static inline __attribute__((always_inline)) unsigned mix(unsigned x)
{
	x ^= x >> 7;
	x *= 0x9e3779b1u;
	return x ^ (x >> 13);
}
