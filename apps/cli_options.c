/* The option layer of every command: a command declares its options once as a table of cli_opt (name, value
 * kind and limits, where the value goes, its usage line) and cli_options_parse reads argv through getopt_long
 * against it, with the same one-line errors everywhere; cli_options_usage prints the table as the option list
 * of a command's --help. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define MAX_OPTIONS 64
#define FIRST_CODE 256 /* getopt_long's results for long options: past every character */

/* The one message for a value an option does not take: the option's own when it has one. */
static int bad_value(const char *cmd, const cli_opt *o, const char *value) {
    if (o->bad) {
        char line[512];
        snprintf(line, sizeof line, o->bad, value);
        return cli_usage_error(cmd, "%s", line);
    }
    return cli_usage_error(cmd, "bad --%s '%s'", o->name, value);
}

static bool has_value(const cli_opt *o) {
    return o->kind != CLI_OPT_FLAG && o->kind != CLI_OPT_CLEAR && o->kind != CLI_OPT_SET;
}

static bool parse_value(const cli_opt *o, const char *value) {
    switch (o->kind) {
    case CLI_OPT_FLAG: *(bool *)o->target = true; return true;
    case CLI_OPT_CLEAR: *(bool *)o->target = false; return true;
    case CLI_OPT_SET: *(int *)o->target = (int)o->min; return true;
    case CLI_OPT_STRING: *(const char **)o->target = value; return true;
    case CLI_OPT_UINT: {
        uint32_t v;
        if (!cli_parse_uint(value, (uint32_t)o->min, (uint32_t)o->max, &v)) return false;
        *(uint32_t *)o->target = v;
        return true;
    }
    case CLI_OPT_FLOAT: return cli_parse_float(value, (float)o->min, (float)o->max, (float *)o->target);
    case CLI_OPT_DOUBLE: return cli_parse_double(value, o->min, o->max, (double *)o->target);
    case CLI_OPT_SIZE: {
        uint32_t w, h, *out = o->target;
        if (!cli_parse_size(value, &w, &h) || w < o->min || h < o->min || w > o->max || h > o->max) return false;
        out[0] = w;
        out[1] = h;
        return true;
    }
    case CLI_OPT_PARSE: return o->parse(value, o->target);
    }
    return false;
}

int cli_option_take(const char *cmd, const cli_opt *o, const char *value) {
    if (value || !has_value(o)) {
        if (!parse_value(o, value)) return bad_value(cmd, o, value);
    } else if (o->parse && !o->parse(NULL, o->target)) { /* an optional value not given */
        return bad_value(cmd, o, "");
    }
    if (o->given) *o->given = true;
    return CLI_EXIT_OK;
}

int cli_options_parse(const char *cmd, int argc, char **argv, const cli_opt *opts, size_t count, size_t max_args,
                      int *first, bool *help) {
    struct option longs[MAX_OPTIONS + 2];
    char shorts[2 * MAX_OPTIONS + 4] = ":h";
    size_t ns = 2, nl = 0;
    if (first) *first = argc;
    *help = false;
    if (count > MAX_OPTIONS) return cli_usage_error(cmd, "%zu options in one table", count);
    for (size_t i = 0; i < count; i++) {
        bool value = has_value(&opts[i]);
        int has = !value ? no_argument : opts[i].optional ? optional_argument : required_argument;
        longs[nl++] = (struct option){opts[i].name, has, 0, FIRST_CODE + (int)i};
        if (opts[i].letter) {
            shorts[ns++] = opts[i].letter;
            if (value) shorts[ns++] = ':';
        }
    }
    longs[nl++] = (struct option){"help", no_argument, 0, 'h'};
    longs[nl] = (struct option){0, 0, 0, 0};
    shorts[ns] = 0;
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (c == 'h') {
            *help = true;
            return CLI_EXIT_OK;
        }
        if (c == ':') return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        const cli_opt *o = NULL;
        if (c >= FIRST_CODE) o = &opts[c - FIRST_CODE];
        else
            for (size_t i = 0; i < count && !o && c != '?'; i++)
                if (opts[i].letter == c) o = &opts[i];
        if (!o) return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        const char *value = optarg;
        /* an optional value also comes as the next argument when that is a number ("--soak 500") */
        if (o->optional && !value && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
            value = argv[optind++];
        int taken = cli_option_take(cmd, o, value);
        if (taken) return taken;
    }
    /* getopt_long has moved the arguments that are no option to the end, in their order */
    if ((size_t)(argc - optind) > max_args) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + (int)max_args]);
    if (first) *first = optind;
    return CLI_EXIT_OK;
}

void cli_options_usage(const cli_opt *opts, size_t count) {
    char left[64];
    for (size_t i = 0; i < count; i++) {
        const cli_opt *o = &opts[i];
        if (!o->help) continue;
        if (o->letter)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->letter, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        else snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        /* the text starts in one column (a long name gets a line of its own); '\n' continues it there */
        if (strlen(left) > 18) printf("  %s\n", left), left[0] = 0;
        const char *line = o->help;
        for (;;) {
            const char *nl = strchr(line, '\n');
            int n = nl ? (int)(nl - line) : (int)strlen(line);
            printf("  %-18s  %.*s\n", left, n, line);
            left[0] = 0;
            if (!nl) break;
            line = nl + 1;
        }
    }
}

bool cli_parse_raw(const char *value, void *target) {
    st_dem_open_desc *od = target;
    return cli_parse_size(value, &od->raw_width, &od->raw_height);
}

bool cli_parse_raw_type(const char *value, void *target) {
    st_dem_open_desc *od = target;
    if (!strcmp(value, "s16")) od->raw_type = ST_DEM_RAW_S16;
    else if (!strcmp(value, "u16")) od->raw_type = ST_DEM_RAW_U16;
    else if (!strcmp(value, "f32")) od->raw_type = ST_DEM_RAW_F32;
    else return false;
    return true;
}

bool cli_parse_endian(const char *value, void *target) {
    st_dem_open_desc *od = target;
    if (!strcmp(value, "le")) od->endian = ST_ENDIAN_LITTLE;
    else if (!strcmp(value, "be")) od->endian = ST_ENDIAN_BIG;
    else return false;
    return true;
}

bool cli_parse_shading(const char *value, void *shading) {
    st_shading s;
    if (!st_shading_parse(value, &s) || s == ST_SHADING_FETCHES) return false; /* a measurement of render's alone */
    *(st_shading *)shading = s;
    return true;
}

bool cli_parse_shading_fetches(const char *value, void *shading) { return st_shading_parse(value, shading); }
