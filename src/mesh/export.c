/* Mesh export for colliders and other tools: one LOD of every chunk in world units (texel centres, slab
 * outlines on texel edges; heights) as Wavefront .obj (groups floor, top, ceiling, wall) or binary
 * little-endian .ply (a per-face part), written atomically. Vertices stay per chunk (sides are duplicated,
 * not welded), which colliders accept. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "strata/file.h"
#include "strata/image.h"
#include "strata/mesh.h"

static const char *const part_names[ST_MESH_PART_COUNT] = {"floor", "top", "ceiling", "wall"};

static void world_pos(const st_mesh *mesh, const st_mesh_chunk *c, const st_mesh_vertex *v, float p[3]) {
    st_mesh_vertex_local(v, p);
    p[0] += (float)(c->cx * mesh->chunk_size);
    p[1] += (float)(c->cy * mesh->chunk_size);
}

/* First index of part p of a LOD inside the chunk's index buffer. */
static uint32_t part_first(const st_mesh_lod *L, int p) {
    uint32_t first = L->first_index;
    for (int q = 0; q < p; q++) first += 3 * L->part_triangles[q];
    return first;
}

static void write_obj(FILE *fp, const st_mesh *mesh, uint32_t lod) {
    uint32_t count = mesh->chunks_x * mesh->chunks_y;
    fprintf(fp, "# strata mesh: %ux%u level, LOD %u, tolerance %g, %s metric\n", mesh->width, mesh->height,
            lod, mesh->tolerance * (double)(1u << lod), mesh->outline ? "outline" : "paper");
    for (uint32_t i = 0; i < count; i++) {
        const st_mesh_chunk *c = &mesh->chunks[i];
        for (uint32_t k = 0; k < c->lods[lod].vertex_count; k++) {
            float p[3];
            world_pos(mesh, c, &c->vertices[k], p);
            fprintf(fp, "v %.1f %.1f %.0f\n", (double)p[0], (double)p[1], (double)p[2]);
        }
    }
    for (int part = 0; part < ST_MESH_PART_COUNT; part++) {
        fprintf(fp, "g %s\n", part_names[part]);
        uint64_t base = 1; /* OBJ counts from 1 */
        for (uint32_t i = 0; i < count; i++) {
            const st_mesh_chunk *c = &mesh->chunks[i];
            const st_mesh_lod *L = &c->lods[lod];
            const uint16_t *ix = c->indices + part_first(L, part);
            for (uint32_t t = 0; t < L->part_triangles[part]; t++)
                fprintf(fp, "f %llu %llu %llu\n", (unsigned long long)(base + ix[3 * t]),
                        (unsigned long long)(base + ix[3 * t + 1]), (unsigned long long)(base + ix[3 * t + 2]));
            base += L->vertex_count;
        }
    }
}

static void write_ply(FILE *fp, const st_mesh *mesh, uint32_t lod) {
    uint32_t count = mesh->chunks_x * mesh->chunks_y;
    uint64_t nv = 0, nf = 0;
    for (uint32_t i = 0; i < count; i++) {
        nv += mesh->chunks[i].lods[lod].vertex_count;
        nf += mesh->chunks[i].lods[lod].triangle_count;
    }
    fprintf(fp,
            "ply\nformat binary_little_endian 1.0\ncomment strata mesh LOD %u; part 0 floor 1 top 2 ceiling 3 wall\n"
            "element vertex %llu\nproperty float x\nproperty float y\nproperty float z\n"
            "element face %llu\nproperty list uchar uint vertex_indices\nproperty uchar part\nend_header\n",
            lod, (unsigned long long)nv, (unsigned long long)nf);
    for (uint32_t i = 0; i < count; i++) {
        const st_mesh_chunk *c = &mesh->chunks[i];
        for (uint32_t k = 0; k < c->lods[lod].vertex_count; k++) {
            float p[3];
            world_pos(mesh, c, &c->vertices[k], p);
            fwrite(p, sizeof p, 1, fp); /* x86 and ARM hosts are little-endian */
        }
    }
    uint32_t base = 0;
    for (uint32_t i = 0; i < count; i++) {
        const st_mesh_chunk *c = &mesh->chunks[i];
        const st_mesh_lod *L = &c->lods[lod];
        for (int part = 0; part < ST_MESH_PART_COUNT; part++) {
            const uint16_t *ix = c->indices + part_first(L, part);
            for (uint32_t t = 0; t < L->part_triangles[part]; t++) {
                unsigned char rec[14];
                rec[0] = 3;
                for (int k = 0; k < 3; k++) {
                    uint32_t v = base + ix[3 * t + (uint32_t)k];
                    memcpy(rec + 1 + 4 * k, &v, 4);
                }
                rec[13] = (unsigned char)part;
                fwrite(rec, sizeof rec, 1, fp);
            }
        }
        base += L->vertex_count;
    }
}

static bool has_extension(const char *path, const char *ext) {
    const char *dot = strrchr(path, '.');
    return dot && !strcasecmp(dot, ext);
}

bool st_mesh_export_format_known(const char *path) {
    return has_extension(path, ".obj") || has_extension(path, ".ply");
}

st_result st_mesh_export(const st_mesh *mesh, uint32_t lod, const char *path, st_error *err) {
    if (lod >= ST_MESH_LODS) return st_error_set(err, ST_ERR_INVALID, "mesh export: LOD %u must be 0..2", lod);
    if (!st_mesh_export_format_known(path))
        return st_error_set(err, ST_ERR_INVALID, "mesh export: '%s' must end in .obj or .ply", path);
    bool obj = has_extension(path, ".obj");
    st_atomic_file f;
    st_result r = st_atomic_open(&f, path, err);
    if (r) return r;
    if (obj)
        write_obj(f.fp, mesh, lod);
    else
        write_ply(f.fp, mesh, lod);
    if (ferror(f.fp)) {
        st_atomic_abort(&f);
        return st_error_set(err, ST_ERR_IO, "mesh export: writing %s failed", path);
    }
    return st_atomic_commit(&f, err);
}
