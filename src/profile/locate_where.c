/* A profile's resolver answer from the address locator (profile.h,
 * locate.h): what etmkit profile and the benches ask. */
#include "etmkit/profile.h"

int profile_where_locate(const struct locate *l, const struct image *img,
			 uint8_t space, uint64_t addr,
			 struct profile_where *w)
{
	struct locate_result lr;
	int err;

	if (!w)
		return -etmkit_err_invalid;
	err = locate_find_binary(l, img, space, addr, &lr);
	if (err < 0)
		return err;
	/* A file offset outside the loadable segments has no ELF address:
	 * not a binary's code, as for simpleperf. */
	if (!lr.vaddr_known)
		return -etmkit_err_not_found;
	w->bin = lr.bin_index;
	w->vaddr = lr.vaddr;
	if (lr.first <= addr && addr <= lr.last && lr.last != UINT64_MAX) {
		w->lo = lr.first;
		w->hi = lr.last + 1;
	}
	return 0;
}
