/* Error strings, version and shared names. */
#include "etmkit/common.h"

const char *etmkit_version(void)
{
	return "0.1.0";
}

const char *etmkit_errstr(int err)
{
	if (err < 0)
		err = -err;
	switch ((enum etmkit_error)err) {
	case etmkit_ok: return "success";
	case etmkit_err_internal: return "internal error";
	case etmkit_err_invalid: return "invalid argument";
	case etmkit_err_nomem: return "out of memory";
	case etmkit_err_eos: return "end of input";
	case etmkit_err_bad_config: return "unsupported trace configuration";
	case etmkit_err_bad_packet: return "reserved or malformed packet";
	case etmkit_err_truncated: return "input ends inside a packet or frame";
	case etmkit_err_bad_frame: return "malformed formatter frame";
	case etmkit_err_io: return "file cannot be read";
	case etmkit_err_format: return "malformed file";
	case etmkit_err_not_found: return "not found";
	case etmkit_err_unsupported: return "not supported";
	}
	return "unknown error";
}

const char *etmkit_isa_name(enum etmkit_isa isa)
{
	switch (isa) {
	case etmkit_isa_arm: return "arm";
	case etmkit_isa_thumb: return "thumb";
	case etmkit_isa_thumbee: return "thumbee";
	case etmkit_isa_jazelle: return "jazelle";
	case etmkit_isa_a64: return "a64";
	case etmkit_isa_reserved: return "reserved";
	case etmkit_isa_unknown: break;
	}
	return "unknown";
}
