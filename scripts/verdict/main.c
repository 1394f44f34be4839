/*
 * verdict: the command line, one pass over the log that hands each line to
 * the concern it belongs to, and the cases of the boot as a whole ("kernel
 * boot", "board ...", "module NAME"). See verdict.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

struct opts {
	char *arch, *config;
	const char *log, *results;
	const char *values;	/* --values FILE */
	char **want;		/* --suites */
	long nwant;
	const char *known;	/* --known FILE: "SUITE CASE reason" lines */
	int kunit;		/* --kunit */
	const char *release;	/* --release: the built kernel's version */
	const char *model;	/* --model: the board's device tree model */
	const char *image_sha;	/* --image-sha256: of the booted image */
};

struct verdict {
	struct opts opt;
	struct log log;
	struct cases cases;
	struct values values;
	struct suites suites;
	struct kunit kunit;
	struct splat splat;
	long boot_end;		/* "harness: end" line, -1 if absent */
};

/* HARNESS_FMT_MODULE_OK or HARNESS_FMT_MODULE_FAIL */
static void module_marker(struct cases *cs, const char *p, long i)
{
	const char *q;
	struct tcase *c;
	char *name;

	p = skip_ws(p + strlen(HARNESS_MODULE));
	for (q = p; *q && !isspace((unsigned char)*q); q++)
		;
	name = xstrndup(p, (size_t)(q - p));
	p = skip_ws(q);
	c = add_case(cs, "module", xprintf("%s", name),
		     word(p, HARNESS_LOADED) ? R_PASS : R_FAIL, 0);
	if (c->res == R_FAIL) {
		set_ctx(c, i, i, F_ANY, NULL);
		c->note = xprintf("the init could not load module %s", name);
	}
	free(name);
}

static void marker_line(struct verdict *v, long i)
{
	const char *p = log_marker(&v->log, i);

	splat_close(&v->splat, &v->log, &v->cases);
	kunit_close_all(&v->kunit, &v->log, &v->cases, i);
	if (splat_marker(&v->splat, &v->log, &v->cases, i))
		return;
	if (word(p, HARNESS_END)) {
		if (v->boot_end < 0)
			v->boot_end = i;
	} else if (word(p, HARNESS_MODULE)) {
		module_marker(&v->cases, p, i);
	} else {
		suites_marker(&v->suites, &v->log, &v->cases, i);
	}
}

/*
 * Suite "board": which kernel booted (its version must be the one built,
 * --release), the machine model the kernel read from the device tree
 * (must be the board's, --model) and the image's checksum (--image-sha256,
 * recorded for the comparison across boards of one build). Each case's
 * value is what the log shows: the first word after @prefix on the first
 * kernel line that has it (@word), or the rest of that line.
 */
static void board_case(struct verdict *v, const char *name, const char *prefix,
		       int word, const char *want, const char *what)
{
	const char *p;
	struct tcase *c;
	long at = 0;
	size_t n = 0;

	p = log_kernel_field(&v->log, prefix, &at);
	if (p && word) {
		n = strcspn(p, " ");
	} else if (p) {
		n = strlen(p);
		while (n && isspace((unsigned char)p[n - 1]))
			n--;
	}
	c = add_case(&v->cases, "board", xprintf("%s", name),
		     p && n == strlen(want) && !strncmp(p, want, n) ?
		     R_PASS : R_FAIL, 0);
	if (p) {
		set_ctx(c, at, at, F_KERNEL, NULL);
		add_value(&v->values, "board", name, strlen(name), p, n);
	}
	if (c->res == R_FAIL && p)
		c->note = xprintf("the log shows \"%.*s\", %s \"%s\"",
				  (int)n, p, what, want);
	else if (c->res == R_FAIL)
		c->note = xprintf("no \"%s\" line in the log; %s \"%s\"",
				  prefix, what, want);
}

static void board_cases(struct verdict *v)
{
	const struct opts *o = &v->opt;

	if (o->release)
		board_case(v, "linux_version", "Linux version ", 1, o->release,
			   "the kernel built is");
	if (o->model)
		board_case(v, "machine_model", "Machine model: ", 0, o->model,
			   "the board's device tree model is");
	if (o->image_sha) {
		add_case(&v->cases, "board", xprintf("image_sha256"), R_PASS, 0);
		add_value(&v->values, "board", "image_sha256",
			  strlen("image_sha256"), o->image_sha,
			  strlen(o->image_sha));
	}
}

/* Case "kernel boot": the boot ends at "harness: end", or at the panic it expects. */
static void boot_case(struct verdict *v)
{
	const struct log *log = &v->log;
	struct tcase *c;
	long i, end;

	end = v->splat.panic ? v->splat.panic_line : v->boot_end;
	if (end >= 0) {
		add_case(&v->cases, "kernel", xprintf("boot"), R_PASS,
			 dur(0, log->lines[end].ts));
		return;
	}
	for (i = log->nlines - 1; i > 0 && log->lines[i].ts < 0; i--)
		;
	c = add_case(&v->cases, "kernel", xprintf("boot"), R_FAIL,
		     log->nlines ? dur(0, log->lines[i].ts) : 0);
	set_ctx(c, log->nlines - CTX_LINES, log->nlines - 1, F_ANY, NULL);
	c->note = v->splat.panic ?
		xprintf("the boot did not end in the expected panic") :
		xprintf("no \"" HARNESS_MARKER " " HARNESS_END "\": crash, panic or timeout");
}

static void analyse(struct verdict *v)
{
	struct tcase *c;
	long i;

	splat_find_panic(&v->splat, &v->log);
	for (i = 0; i < v->log.nlines; i++) {
		switch (v->log.lines[i].kind) {
		case L_RELAY:
			suites_relay(&v->suites, &v->log, &v->cases, &v->values,
				     i);
			break;
		case L_MARKER:
			marker_line(v, i);
			break;
		case L_KERNEL:
			splat_line(&v->splat, &v->log, &v->cases, &v->suites,
				   &v->kunit, i);
			kunit_line(&v->kunit, &v->log, &v->cases, i);
			break;
		}
	}
	splat_finish(&v->splat, &v->log, &v->cases);
	kunit_close_all(&v->kunit, &v->log, &v->cases, v->log.nlines);

	suites_finish(&v->suites, &v->log, &v->cases, v->opt.want,
		      v->opt.nwant, v->splat.panic_line);
	board_cases(v);
	log_glued_lines(&v->log, &v->cases);
	kunit_finish(&v->kunit, &v->log, &v->cases);
	if (v->opt.kunit && !v->kunit.nresults) {
		c = add_case(&v->cases, "kunit", xprintf("(none)"), R_FAIL, 0);
		c->note = xprintf("no KUnit results in the log");
	}
	splat_expected_panic(&v->splat, &v->log, &v->cases);
	boot_case(v);
}

static void usage(FILE *f, int status)
{
	fputs("usage: verdict --arch ARCH --config CONFIG --log FILE --results FILE\n"
	      "               [--values FILE] [--suites a,b,c] [--kunit]\n"
	      "               [--kunit-suite SUITE]...\n"
	      "               [--allow SUBSTRING]...\n"
	      "               [--known FILE] [--release VERSION] [--model MODEL]\n"
	      "               [--image-sha256 HEX] [--expect-panic SUBSTRING]\n",
	      f);
	exit(status);
}

/* "--opt VALUE" or "--opt=VALUE"; NULL if argv[*i] is not @opt */
static const char *optval(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);
	const char *a = argv[*i];

	if (strncmp(a, opt, n) || (a[n] && a[n] != '='))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (*i + 1 >= argc)
		usage(stderr, 2);
	return argv[++*i];
}

static void add_suites(struct opts *o, const char *list)
{
	const char *p = list, *q;

	while (*p) {
		q = p + strcspn(p, ",");
		if (q > p) {
			o->want = xrealloc(o->want, (size_t)(o->nwant + 1) *
					   sizeof(*o->want));
			o->want[o->nwant++] = xstrndup(p, (size_t)(q - p));
		}
		p = *q ? q + 1 : q;
	}
}

static void parse_args(struct verdict *v, int argc, char **argv)
{
	struct opts *o = &v->opt;
	struct splat *s = &v->splat;
	const char *val;
	int i;

	for (i = 1; i < argc; i++) {
		if ((val = optval(argc, argv, &i, "--arch"))) {
			o->arch = sanitize(xstrndup(val, strlen(val)));
		} else if ((val = optval(argc, argv, &i, "--config"))) {
			o->config = sanitize(xstrndup(val, strlen(val)));
		} else if ((val = optval(argc, argv, &i, "--log"))) {
			o->log = val;
		} else if ((val = optval(argc, argv, &i, "--results"))) {
			o->results = val;
		} else if ((val = optval(argc, argv, &i, "--values"))) {
			o->values = val;
		} else if ((val = optval(argc, argv, &i, "--suites"))) {
			add_suites(o, val);
		} else if ((val = optval(argc, argv, &i, "--known"))) {
			o->known = val;
		} else if ((val = optval(argc, argv, &i, "--allow"))) {
			s->allow = xrealloc(s->allow, (size_t)(s->nallow + 1) *
					    sizeof(*s->allow));
			s->allow[s->nallow++] = (char *)val;
		} else if ((val = optval(argc, argv, &i, "--release"))) {
			o->release = val;
		} else if ((val = optval(argc, argv, &i, "--model"))) {
			o->model = val;
		} else if ((val = optval(argc, argv, &i, "--image-sha256"))) {
			o->image_sha = val;
		} else if ((val = optval(argc, argv, &i, "--expect-panic"))) {
			s->panic = val;
		} else if ((val = optval(argc, argv, &i, "--kunit-suite"))) {
			kunit_want(&v->kunit, val);
		} else if (!strcmp(argv[i], "--kunit")) {
			o->kunit = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout, 0);
		} else {
			fprintf(stderr, "verdict: unknown argument: %s\n", argv[i]);
			usage(stderr, 2);
		}
	}
	if (!o->arch || !*o->arch || !o->config || !*o->config || !o->log ||
	    !o->results)
		usage(stderr, 2);
}

int main(int argc, char **argv)
{
	static struct verdict v = { .boot_end = -1 };

	splat_init(&v.splat);
	kunit_init(&v.kunit);
	parse_args(&v, argc, argv);
	log_read(&v.log, v.opt.log);
	analyse(&v);
	apply_known(&v.cases, v.opt.known, v.opt.arch, v.opt.config);
	report_values(&v.values, v.opt.arch, v.opt.config, v.opt.values);
	return report(&v.cases, &v.log, v.opt.arch, v.opt.config,
		      v.opt.results);
}
