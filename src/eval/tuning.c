/* Tuning files: tuning.json, written by `strata tune`, read back into each method's knobs for the runs that
 * take a tuning (`strata compare --tuning`, the soak). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "strata/eval.h"
#include "strata/file.h"

st_result st_tuning_read(const char *path, st_tuning *out, st_error *err) {
    memset(out, 0, sizeof *out);
    FILE *fp = NULL;
    st_result opened = st_file_open_read(path, &fp, err);
    if (opened) return opened;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    if (n < 0 || n > (64l << 20)) {
        fclose(fp);
        return st_error_set(err, ST_ERR_FORMAT, "%s: not a tuning file (size)", path);
    }
    char *text = malloc((size_t)n + 1);
    if (!text) {
        fclose(fp);
        return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t got = fread(text, 1, (size_t)n, fp);
    fclose(fp);
    text[got] = 0;
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc) return st_error_set(err, ST_ERR_FORMAT, "%s: not valid JSON", path);
    st_result res = ST_OK;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    const cJSON *methods = cJSON_GetObjectItemCaseSensitive(doc, "methods");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "strata-tune") || !cJSON_IsArray(methods))
        res = st_error_set(err, ST_ERR_FORMAT, "%s: not a strata tune result (schema \"strata-tune\")", path);
    const cJSON *m;
    cJSON_ArrayForEach(m, methods) {
        if (res) break;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");
        const cJSON *knob = cJSON_GetObjectItemCaseSensitive(m, "knob");
        const cJSON *value = cJSON_GetObjectItemCaseSensitive(m, "chosen_value");
        if (!cJSON_IsString(name)) {
            res = st_error_set(err, ST_ERR_FORMAT, "%s: a method without a name", path);
            break;
        }
        if (out->count == sizeof out->choices / sizeof out->choices[0]) break;
        st_tuning_choice *c = &out->choices[out->count++];
        snprintf(c->method, sizeof c->method, "%s", name->valuestring);
        if (cJSON_IsString(knob) && cJSON_IsNumber(value)) {
            if (!st_knob_find(knob->valuestring)) {
                res = st_error_set(err, ST_ERR_FORMAT, "%s: method %s: unknown knob '%s'", path, c->method,
                                   knob->valuestring);
                break;
            }
            snprintf(c->knob, sizeof c->knob, "%s", knob->valuestring);
            c->value = value->valuedouble;
        }
    }
    cJSON_Delete(doc);
    return res;
}

st_method_knobs st_tuning_knobs(const st_tuning *t, const char *method, const st_tuning_choice **choice) {
    st_method_knobs k = {0};
    if (choice) *choice = NULL;
    if (!t) return k;
    for (size_t i = 0; i < t->count; i++) {
        if (strcmp(t->choices[i].method, method)) continue;
        const st_method_knob *knob = t->choices[i].knob[0] ? st_knob_find(t->choices[i].knob) : NULL;
        if (knob) st_knob_set(&k, knob, t->choices[i].value);
        if (choice) *choice = &t->choices[i];
    }
    return k;
}
