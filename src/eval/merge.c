/* `strata merge`: several adapters' results.json into one Markdown report — frame time per method per
 * adapter — and the accuracy cross-check: accuracy should not depend on the device, so any disagreement
 * with the first file beyond a tolerance is listed as a finding, never averaged away. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "strata/eval.h"
#include "strata/file.h"
#include "strata/image.h"

#define MAX_FILES 64

static double num(const cJSON *o, const char *name) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *name) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(x) ? x->valuestring : "";
}

static const cJSON *find_row(const cJSON *rows, const char *method, const char *view) {
    const cJSON *row;
    cJSON_ArrayForEach(row, rows) {
        if (!strcmp(str(row, "method"), method) && !strcmp(str(row, "view"), view)) return row;
    }
    return NULL;
}

static const cJSON *find_method(const cJSON *doc, const char *name) {
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "methods")) {
        if (!strcmp(str(m, "name"), name)) return m;
    }
    return NULL;
}

static st_result load(const char *path, cJSON **out, st_error *err) {
    FILE *fp = NULL;
    st_result opened = st_file_open_read(path, &fp, err);
    if (opened) return opened;
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    if (size <= 0 || size > (256l << 20)) {
        fclose(fp);
        return st_error_set(err, ST_ERR_FORMAT, "%s: empty or too large", path);
    }
    char *text = malloc((size_t)size + 1);
    if (!text) {
        fclose(fp);
        return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t got = fread(text, 1, (size_t)size, fp);
    fclose(fp);
    text[got] = 0;
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc) return st_error_set(err, ST_ERR_FORMAT, "%s: not valid JSON", path);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema_version");
    if (strcmp(str(doc, "schema"), "strata-compare") || !cJSON_IsNumber(schema) ||
        schema->valueint != ST_COMPARE_SCHEMA_VERSION || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "rows"))) {
        cJSON_Delete(doc);
        return st_error_set(err, ST_ERR_FORMAT, "%s: not a strata-compare results file of schema version %d", path,
                            ST_COMPARE_SCHEMA_VERSION);
    }
    *out = doc;
    return ST_OK;
}

/* Where a file's frame times come from: every method's "timing" (gpu, cpu or mixed) in one word. */
static const char *timing_source(const cJSON *doc) {
    bool gpu = false, cpu = false;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "methods")) {
        const char *t = str(m, "timing");
        if (!strcmp(t, "gpu")) gpu = true;
        else if (!strcmp(t, "cpu")) cpu = true;
        else gpu = cpu = true;
    }
    return gpu && cpu ? "mixed (GPU timestamps and CPU submit-and-wait)"
           : gpu      ? "GPU timestamps"
           : cpu      ? "CPU submit-and-wait"
                      : "–";
}

static void cell(FILE *fp, const char *fmt, double v) {
    if (isfinite(v)) fprintf(fp, fmt, v);
    else fputs("–", fp);
}

/* Writes the findings and returns how many there were. */
static size_t cross_check(FILE *fp, cJSON *const *docs, const char *const *paths, size_t count, double tol) {
    size_t findings = 0;
    const cJSON *base = docs[0];
    const char *base_name = str(cJSON_GetObjectItemCaseSensitive(base, "adapter"), "name");
    const cJSON *base_rows = cJSON_GetObjectItemCaseSensitive(base, "rows");
    const char *base_crc = str(cJSON_GetObjectItemCaseSensitive(base, "level"), "crc32");
    const cJSON *base_pr = cJSON_GetObjectItemCaseSensitive(base, "protocol");
    for (size_t i = 1; i < count; i++) {
        const char *name = str(cJSON_GetObjectItemCaseSensitive(docs[i], "adapter"), "name");
        const char *crc = str(cJSON_GetObjectItemCaseSensitive(docs[i], "level"), "crc32");
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(docs[i], "protocol");
        if (strcmp(crc, base_crc)) {
            fprintf(fp, "- **%s** (%s): level crc32 %s differs from the baseline's %s — not the same world\n", name,
                    paths[i], crc, base_crc);
            findings++;
        }
        if (num(pr, "width") != num(base_pr, "width") || num(pr, "height") != num(base_pr, "height") ||
            num(pr, "far") != num(base_pr, "far")) {
            fprintf(fp, "- **%s**: protocol %.0f×%.0f far %.0f differs from the baseline's %.0f×%.0f far %.0f\n", name,
                    num(pr, "width"), num(pr, "height"), num(pr, "far"), num(base_pr, "width"),
                    num(base_pr, "height"), num(base_pr, "far"));
            findings++;
        }
        const cJSON *row;
        cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(docs[i], "rows")) {
            const char *method = str(row, "method"), *view = str(row, "view");
            const cJSON *b = find_row(base_rows, method, view);
            if (!b) continue; /* rows only one side has are listed in the coverage line below */
            static const char *fields[] = {"see_through", "coherence", "covers_sky"};
            for (int k = 0; k < 3; k++) {
                double x = num(row, fields[k]), y = num(b, fields[k]);
                if (isfinite(x) && isfinite(y) && fabs(x - y) <= tol) continue;
                if (!isfinite(x) && !isfinite(y)) continue;
                fprintf(fp, "- **%s**: %s @ %s %s %.3f %% vs %.3f %% on %s (Δ %+.3f points)\n", name, method, view,
                        fields[k], x, y, base_name, x - y);
                findings++;
            }
        }
        size_t missing = 0;
        cJSON_ArrayForEach(row, base_rows) {
            if (!find_row(cJSON_GetObjectItemCaseSensitive(docs[i], "rows"), str(row, "method"), str(row, "view")))
                missing++;
        }
        if (missing) {
            fprintf(fp, "- **%s**: %zu method × view rows of the baseline are missing\n", name, missing);
            findings++;
        }
    }
    if (!findings) fprintf(fp, "No findings: every adapter agrees with %s within %.3f points.\n", base_name, tol);
    return findings;
}

st_result st_compare_merge(const char *const *paths, size_t count, double tolerance, const char *out_path,
                           size_t *findings, st_error *err) {
    if (count < 1 || count > MAX_FILES)
        return st_error_set(err, ST_ERR_INVALID, "merge: give 1..%d results files", MAX_FILES);
    cJSON *docs[MAX_FILES] = {0};
    st_result res = ST_OK;
    for (size_t i = 0; i < count && !res; i++) res = load(paths[i], &docs[i], err);
    FILE *fp = NULL;
    st_atomic_file f = {0};
    if (!res) {
        if (out_path) {
            res = st_atomic_open(&f, out_path, err);
            fp = f.fp;
        } else {
            fp = stdout;
        }
    }
    if (!res) {
        /* methods in the order they first appear across the files */
        const char *methods[ST_COMPARE_MAX_METHODS * 4];
        size_t nm = 0;
        for (size_t i = 0; i < count; i++) {
            const cJSON *m;
            cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(docs[i], "methods")) {
                bool seen = false;
                for (size_t k = 0; k < nm; k++) seen |= !strcmp(methods[k], str(m, "name"));
                if (!seen && nm < sizeof methods / sizeof methods[0]) methods[nm++] = str(m, "name");
            }
        }
        fprintf(fp, "# strata compare across %zu adapter%s\n\n", count, count == 1 ? "" : "s");
        fprintf(fp, "| adapter | type | driver | timing | world crc32 | size | file |\n|---|---|---|---|---|---|---|\n");
        for (size_t i = 0; i < count; i++) {
            const cJSON *ad = cJSON_GetObjectItemCaseSensitive(docs[i], "adapter");
            const cJSON *pr = cJSON_GetObjectItemCaseSensitive(docs[i], "protocol");
            fprintf(fp, "| %s | %s | %s | %s | %s | %.0f×%.0f | %s |\n", str(ad, "name"), str(ad, "device_type"),
                    str(ad, "driver"), timing_source(docs[i]),
                    str(cJSON_GetObjectItemCaseSensitive(docs[i], "level"), "crc32"), num(pr, "width"),
                    num(pr, "height"), paths[i]);
        }
        fprintf(fp, "\n## Frame time: mean over the views ± 95 %% interval (ms)\n\n");
        fprintf(fp, "Cells marked * come from CPU submit-and-wait (no GPU timestamps): compare them only within "
                    "their own column.\n\n| method |");
        for (size_t i = 0; i < count; i++)
            fprintf(fp, " %s |", str(cJSON_GetObjectItemCaseSensitive(docs[i], "adapter"), "name"));
        fprintf(fp, "\n|---|");
        for (size_t i = 0; i < count; i++) fprintf(fp, "---:|");
        fputc('\n', fp);
        for (size_t k = 0; k < nm; k++) {
            fprintf(fp, "| %s |", methods[k]);
            for (size_t i = 0; i < count; i++) {
                const cJSON *m = find_method(docs[i], methods[k]);
                fputc(' ', fp);
                if (m) {
                    cell(fp, "%.3f", num(m, "mean_ms"));
                    fputs(" ± ", fp);
                    cell(fp, "%.3f", num(m, "ci95_ms"));
                    if (strcmp(str(m, "timing"), "gpu")) fputc('*', fp);
                } else {
                    fputs("–", fp);
                }
                fputs(" |", fp);
            }
            fputc('\n', fp);
        }
        fprintf(fp, "\n## Accuracy cross-check against %s (tolerance %.3f points)\n\n",
                str(cJSON_GetObjectItemCaseSensitive(docs[0], "adapter"), "name"), tolerance);
        size_t n = count > 1 ? cross_check(fp, docs, paths, count, tolerance) : 0;
        if (count == 1) fprintf(fp, "One adapter: nothing to cross-check.\n");
        if (findings) *findings = n;
        if (out_path) res = st_atomic_commit(&f, err);
    }
    for (size_t i = 0; i < count; i++) cJSON_Delete(docs[i]);
    return res;
}
