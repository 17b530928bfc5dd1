/* What the SVG charts share: a palette of distinct colours with a marker shape each (so 20 series stay apart
 * in colour and in shape, also in grey), and axis ticks — "nice" steps on a linear axis, 1-2-5 per decade on a
 * logarithmic one, which a chart uses when its values span more than a factor of ten. */
#include <math.h>
#include <stdio.h>

#include "eval/eval_internal.h"

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                                      "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#8c6d31",
                                      "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363"};
#define PALETTE_N (sizeof palette / sizeof palette[0])

const char *st_svg_color(size_t i) { return palette[i % PALETTE_N]; }

void st_svg_marker(FILE *fp, size_t i, double x, double y, double r, const char *title) {
    const char *c = st_svg_color(i);
    int shape = (int)(i % 7);
    bool hollow = (i / 7) % 2 == 1;
    const char *fill = hollow ? "white" : c;
    fprintf(fp, "<g fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\">", fill, c);
    if (title) fprintf(fp, "<title>%s</title>", title);
    switch (shape) {
    case 0: fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>", x, y, r); break;
    case 1: fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x - r, y - r, 2 * r, 2 * r); break;
    case 2:
        fprintf(fp, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>", x, y - 1.2 * r, x + 1.1 * r, y + 0.8 * r,
                x - 1.1 * r, y + 0.8 * r);
        break;
    case 3:
        fprintf(fp, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>", x, y - 1.3 * r, x + 1.3 * r, y,
                x, y + 1.3 * r, x - 1.3 * r, y);
        break;
    case 4:
        fprintf(fp, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>", x, y + 1.2 * r, x + 1.1 * r, y - 0.8 * r,
                x - 1.1 * r, y - 0.8 * r);
        break;
    case 5:
        fprintf(fp, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke-width=\"2.5\"/>", x - r, y - r, x + r,
                y + r, x - r, y + r, x + r, y - r);
        break;
    default:
        fprintf(fp, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke-width=\"2.5\"/>", x - 1.2 * r, y,
                x + 1.2 * r, y, x, y - 1.2 * r, x, y + 1.2 * r);
        break;
    }
    fprintf(fp, "</g>\n");
}

static double nice_step(double span, int want) {
    double raw = span / want, mag = pow(10, floor(log10(raw))), n = raw / mag;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
}

st_svg_axis st_svg_axis_make(double lo, double hi, bool allow_log) {
    st_svg_axis a = {0};
    if (!(hi > lo)) hi = lo + 1;
    a.log = allow_log && lo > 0 && hi / lo > 10;
    if (a.log) {
        /* the range snaps outward to the 1-2-5 values around the data */
        static const double steps[3] = {1, 2, 5};
        double d0 = pow(10, floor(log10(lo))), d1 = pow(10, floor(log10(hi)));
        a.lo = d0;
        for (int k = 2; k >= 0; k--)
            if (d0 * steps[k] <= lo * 1.0001) {
                a.lo = d0 * steps[k];
                break;
            }
        a.hi = d1 * 10;
        for (int k = 0; k < 3; k++)
            if (d1 * steps[k] >= hi * 0.9999) {
                a.hi = d1 * steps[k];
                break;
            }
        for (double d = d0; d <= a.hi * 1.0001 && a.count < ST_SVG_MAX_TICKS; d *= 10)
            for (int k = 0; k < 3 && a.count < ST_SVG_MAX_TICKS; k++) {
                double v = d * steps[k];
                if (v >= a.lo * 0.9999 && v <= a.hi * 1.0001) a.ticks[a.count++] = v;
            }
    } else {
        double step = nice_step(hi - (lo > 0 ? 0 : lo), 5);
        a.lo = lo > 0 ? 0 : floor(lo / step) * step;
        a.hi = ceil(hi / step) * step;
        for (double v = a.lo; v <= a.hi + step * 0.01 && a.count < ST_SVG_MAX_TICKS; v += step) a.ticks[a.count++] = v;
    }
    return a;
}

double st_svg_axis_pos(const st_svg_axis *a, double v) {
    if (a->log) return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    return (v - a->lo) / (a->hi - a->lo);
}
