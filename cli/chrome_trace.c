/* etmkit CLI: Chrome / Perfetto trace-event JSON (cli/chrome_trace.h;
 * the event fields: digest perf-data.md 4f). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_trace.h"
#include "text_out.h"

static const char *const clock_names[stacks_clock_count] = {
	"instructions", "cycles", "timestamps"
};

struct chrome_tid {
	uint32_t pid, tid;
};

/* Frame names as JSON strings, by frame key: each escaped once (a
 * slot holds the last key that hashed there). */
#define NAME_SLOTS 1024
struct chrome_name {
	uint64_t key;
	char *json;                 /* NULL: empty */
	size_t len;
};

struct chrome_trace {
	FILE *f;
	unsigned clock;
	const struct stack_names *names;
	int first;                  /* no event written yet */
	struct chrome_tid *seen;    /* pid/tid named so far */
	size_t nseen, capseen;
	size_t last;                /* seen[] index of the last event's */
	uint8_t pid_seen[128];
	const char *(*comm)(void *ctx, uint8_t id, uint32_t tid);
	void *comm_ctx;
	struct chrome_name names_json[NAME_SLOTS];
};

static void sep(struct chrome_trace *ct)
{
	fputs(ct->first ? "\n" : ",\n", ct->f);
	ct->first = 0;
}

struct chrome_trace *chrome_trace_alloc(FILE *f, unsigned clock,
					const struct stack_names *names)
{
	struct chrome_trace *ct = calloc(1, sizeof(*ct));

	if (!ct)
		return NULL;
	ct->f = f;
	ct->clock = clock < stacks_clock_count ? clock : 0;
	ct->names = names;
	ct->first = 1;
	fputs("{\"traceEvents\":[", f);
	return ct;
}

void chrome_trace_thread_names(struct chrome_trace *ct,
			       const char *(*comm)(void *ctx, uint8_t id,
						   uint32_t tid),
			       void *ctx)
{
	ct->comm = comm;
	ct->comm_ctx = ctx;
}

/* A thread's name: its process's "COMM (tid N)", as a JSON string. */
static void put_name_tid(FILE *f, const char *comm, uint32_t tid)
{
	char buf[96];
	size_t n = strlen(comm);

	if (n > 63)
		n = cli_utf8_cut(comm, 63);
	snprintf(buf, sizeof(buf), "%.*s (tid %" PRIu32 ")", (int)n, comm,
		 tid);
	cli_json_string(f, buf);
}

/* The metadata events of pid @pid / tid @tid, the first time. */
static int name_tid(struct chrome_trace *ct, const struct stacks_event *ev,
		    uint32_t pid, uint32_t tid)
{
	const char *comm;

	/* the thread of the event before, almost always */
	if (ct->nseen && ct->seen[ct->last].pid == pid &&
	    ct->seen[ct->last].tid == tid)
		return 0;
	for (size_t i = ct->nseen; i-- > 0;)
		if (ct->seen[i].pid == pid && ct->seen[i].tid == tid) {
			ct->last = i;
			return 0;
		}
	if (ct->nseen == ct->capseen) {
		size_t cap = ct->capseen ? ct->capseen * 2 : 16;
		struct chrome_tid *n = realloc(ct->seen, cap * sizeof(*n));

		if (!n)
			return -etmkit_err_nomem;
		ct->seen = n;
		ct->capseen = cap;
	}
	ct->last = ct->nseen;
	ct->seen[ct->nseen].pid = pid;
	ct->seen[ct->nseen++].tid = tid;
	if (!ct->pid_seen[pid & 0x7f]) {
		ct->pid_seen[pid & 0x7f] = 1;
		sep(ct);
		fprintf(ct->f, "{\"name\":\"process_name\",\"ph\":\"M\","
			"\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":"
			"{\"name\":\"trace ID 0x%02" PRIx32 "\"}}", pid, tid,
			pid);
		sep(ct);
		fprintf(ct->f, "{\"name\":\"process_labels\",\"ph\":\"M\","
			"\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":"
			"{\"labels\":\"ts: %s\"}}", pid, tid,
			clock_names[ct->clock]);
	}
	sep(ct);
	comm = ev->has_thread && ct->comm ?
	       ct->comm(ct->comm_ctx, (uint8_t)pid, tid) : NULL;
	if (comm) {
		fprintf(ct->f, "{\"name\":\"thread_name\",\"ph\":\"M\","
			"\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":"
			"{\"name\":", pid, tid);
		put_name_tid(ct->f, comm, tid);
		fputs("}}", ct->f);
	} else if (ev->has_thread)
		fprintf(ct->f, "{\"name\":\"thread_name\",\"ph\":\"M\","
			"\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":"
			"{\"name\":\"context ID %" PRIu32 "\"}}", pid, tid,
			tid);
	else
		fprintf(ct->f, "{\"name\":\"thread_name\",\"ph\":\"M\","
			"\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":"
			"{\"name\":\"trace ID 0x%02" PRIx32 "\"}}", pid, tid,
			pid);
	return 0;
}

/* Frame @key's name as a JSON string (its slot's), or NULL out of
 * memory. */
static const struct chrome_name *frame_name(struct chrome_trace *ct,
					    uint64_t key)
{
	struct chrome_name *s = &ct->names_json[(key ^ key >> 17) *
						0x9E3779B97F4A7C15ull >> 54];
	const char *n;
	char hex[24];

	if (s->json && s->key == key)
		return s;
	if (key == STACKS_KEY_UNKNOWN)
		n = "[unknown]";
	else if (key == STACKS_KEY_TRUNCATED)
		n = "[truncated]";
	else
		n = stack_names_name(ct->names, key);
	if (!n) {
		snprintf(hex, sizeof(hex), "0x%" PRIx64, key);
		n = hex;
	}
	free(s->json);
	s->json = cli_json_quote(n, &s->len);
	s->key = key;
	return s->json ? s : NULL;
}

/* @v in decimal at @p: the end. Two digits a step. */
static char *put_u64(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char d[20];
	int n = 20;

	while (v >= 100) {
		const char *q = &pairs[2 * (v % 100)];

		v /= 100;
		d[--n] = q[1];
		d[--n] = q[0];
	}
	if (v >= 10) {
		d[--n] = pairs[2 * v + 1];
		d[--n] = pairs[2 * v];
	} else {
		d[--n] = (char)('0' + v);
	}
	memcpy(p, d + n, (size_t)(20 - n));
	return p + (20 - n);
}

static char *put_str(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

#define PUT(p, lit) put_str((p), (lit), sizeof(lit) - 1)

/* A frame's slice, after its separator: put together in memory, one
 * write. */
static int frame_event(struct chrome_trace *ct, const struct stacks_event *ev,
		       uint32_t pid, uint32_t tid)
{
	const struct chrome_name *nm = frame_name(ct, ev->key);
	/* on the heap only for names over 800 bytes (C++ templates) */
	char fixed[1024], *buf = fixed, *p;
	size_t need;

	if (!nm)
		return -etmkit_err_nomem;
	need = nm->len + 200;
	if (need > sizeof(fixed) && !(buf = malloc(need)))
		return -etmkit_err_nomem;
	p = ct->first ? PUT(buf, "\n{\"name\":") : PUT(buf, ",\n{\"name\":");
	ct->first = 0;
	p = put_str(p, nm->json, nm->len);
	p = ev->exc ? PUT(p, ",\"cat\":\"exception\",\"ph\":\"X\",\"ts\":") :
		      PUT(p, ",\"cat\":\"function\",\"ph\":\"X\",\"ts\":");
	p = put_u64(p, ev->begin);
	p = PUT(p, ",\"dur\":");
	p = put_u64(p, ev->end - ev->begin);
	p = PUT(p, ",\"pid\":");
	p = put_u64(p, pid);
	p = PUT(p, ",\"tid\":");
	p = put_u64(p, tid);
	p = PUT(p, ",\"args\":{\"depth\":");
	p = put_u64(p, ev->depth);
	p = PUT(p, "}}");
	fwrite(buf, 1, (size_t)(p - buf), ct->f);
	if (buf != fixed)
		free(buf);
	return 0;
}

int chrome_trace_event(void *ctx, const struct stacks_event *ev)
{
	struct chrome_trace *ct = ctx;
	uint32_t pid = ev->id, tid = ev->has_thread ? ev->thread : ev->id;
	int err = name_tid(ct, ev, pid, tid);

	if (err < 0)
		return err;
	if (ev->kind == stacks_ev_frame)
		return frame_event(ct, ev, pid, tid); /* its separator too */
	sep(ct);
	switch (ev->kind) {
	case stacks_ev_exception:
		fprintf(ct->f, "{\"name\":\"exception\",\"cat\":\"exception\","
			"\"ph\":\"i\",\"s\":\"t\",\"ts\":%" PRIu64 ",\"pid\":%"
			PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{\"number\":%u}}",
			ev->begin, pid, tid, (unsigned)ev->number);
		break;
	default:
		fputs("{\"name\":", ct->f);
		cli_json_string(ct->f, etmkit_elem_kind_name(ev->elem));
		fprintf(ct->f, ",\"cat\":\"trace\",\"ph\":\"i\",\"s\":\"t\","
			"\"ts\":%" PRIu64 ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
			",\"args\":{", ev->begin, pid, tid);
		if (ev->elem == etmkit_elem_gap ||
		    ev->elem == etmkit_elem_no_image) {
			fputs("\"reason\":", ct->f);
			cli_json_string(ct->f, etmkit_loss_name(ev->loss));
		}
		fputs("}}", ct->f);
		break;
	}
	return 0;
}

int chrome_trace_end(struct chrome_trace *ct)
{
	fprintf(ct->f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":"
		"{\"generator\":\"etmkit\",\"clock\":\"%s\"}}\n",
		clock_names[ct->clock]);
	return ferror(ct->f) ? -etmkit_err_io : 0;
}

void chrome_trace_free(struct chrome_trace *ct)
{
	if (!ct)
		return;
	free(ct->seen);
	for (size_t i = 0; i < NAME_SLOTS; i++)
		free(ct->names_json[i].json);
	free(ct);
}
