/* main.c: cprof-report's command line.
 *
 * Exit status: 0 done, 1 a profile file could not be used (or output failed), 2 usage.
 * Errors are one line on stderr, and stdout stays empty unless the report is complete.
 */
#include "profile.h"
#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: cprof-report --json FILE...\n"
    "       cprof-report --help\n"
    "Sum the cprof profile files FILE... (written by programs built with cprof-cc).\n"
    "  --json   print the summed profile as one JSON document (docs/report-json.md)\n"
    "  --help   print this help and exit\n";

/* One line on stderr, whatever the file names and keys quoted in msg contain. */
static void error_line(const char *msg)
{
    fputs("cprof-report: ", stderr);
    for (const char *c = msg; *c; c++)
        fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, stderr);
    fputc('\n', stderr);
}

static int usage_error(const char *msg)
{
    if (msg)
        error_line(msg);
    fputs(usage_text, stderr);
    return 2;
}

int main(int argc, char **argv)
{
    /* Long options only; their values are outside char range so that optopt tells an
     * unknown short option from a misused long one. */
    enum { OPT_JSON = 256, OPT_HELP };
    static const struct option options[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        char msg[256];
        switch (opt) {
        case OPT_JSON:
            json = true;
            break;
        case OPT_HELP:
            fputs(usage_text, stdout);
            return 0;
        default:
            if (optopt > 0 && optopt < 256)
                snprintf(msg, sizeof msg, "invalid option '-%c'", optopt);
            else
                snprintf(msg, sizeof msg, "invalid option '%s'", argv[optind - 1]);
            return usage_error(msg);
        }
    }
    if (optind == argc)
        return usage_error(NULL);
    if (!json) {
        error_line("text report not implemented yet; use --json");
        return 2;
    }

    cprof_profile p;
    char err[1024];
    if (cprof_profile_load(&p, argv + optind, argc - optind, err, sizeof err)) {
        error_line(err);
        return 1;
    }
    char *text = cprof_report_json(&p);
    cprof_profile_free(&p);
    if (!text) {
        error_line("out of memory");
        return 1;
    }
    fputs(text, stdout);
    free(text);
    if (fflush(stdout) || ferror(stdout)) {
        char msg[256];
        snprintf(msg, sizeof msg, "cannot write the report: %s", strerror(errno));
        error_line(msg);
        return 1;
    }
    return 0;
}
