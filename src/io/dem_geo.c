/* Geodesy the geographic readers share: metres per degree of longitude and latitude on an ellipsoid, used
 * to turn degree spacings (.hgt, geographic GeoTIFFs) into metres at a raster's centre latitude. */
#include <math.h>

#include "dem_internal.h"

void st_dem_metres_per_degree(double lat_deg, double a, double f, double *east_west, double *north_south) {
    const double deg = M_PI / 180.0;
    double e2 = f * (2.0 - f), s = sin(lat_deg * deg), q = 1.0 - e2 * s * s;
    double n = a / sqrt(q);                /* prime-vertical radius of curvature */
    double m = a * (1.0 - e2) / (q * sqrt(q)); /* meridian radius of curvature */
    *east_west = n * cos(lat_deg * deg) * deg;
    *north_south = m * deg;
}
