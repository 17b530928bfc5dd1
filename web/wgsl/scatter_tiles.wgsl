// Scattered, hole-free: WGSL port of shaders/methods/scatter_tiles.comp — the jobs of the faces whose pixel
// rectangle exceeded a tile. The seam has no indirect dispatch, so web/methods/scatter.c dispatches as many
// workgroups as the job queue holds (at most 65535), each taking jobs g, g + G, g + 2G, ... of those queued (the
// native pass gets the same loop with the group count the scatter pass wrote); a job is SCATTER_TILES_PER_JOB
// tiles of its face, one pixel per invocation; tiles of the face's box that the face does not reach are passed
// over (face_misses_tile).
//! requires globals.wgsl camera.wgsl scatter.wgsl face_raster.wgsl scatter_queue.wgsl

@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) local: vec3<u32>) {
    let count = min(atomicLoad(&queue.job_count), job_capacity());
    let lid = vec2<i32>(local.xy);
    for (var j = wg.x; j < count; j += groups.x) {
        let job = jobs[j];
        let b = 8u * job.x;
        let head = faces[b];
        let f = Face(head & 255u, bitcast<f32>(faces[b + 1u]),
                     vec4<f32>(bitcast<f32>(faces[b + 2u]), bitcast<f32>(faces[b + 3u]), bitcast<f32>(faces[b + 4u]),
                               bitcast<f32>(faces[b + 5u])),
                     head >> 8u);
        let r = vec4<i32>(vec4<u32>(faces[b + 6u] & 0xFFFFu, faces[b + 6u] >> 16u, faces[b + 7u] & 0xFFFFu,
                                    faces[b + 7u] >> 16u));
        let tiles_x = rect_tiles_x(r);
        let tiles = rect_tiles(r);
        for (var k = job.y; k < min(job.y + SCATTER_TILES_PER_JOB, tiles); k++) {
            let o = r.xy + SCATTER_TILE * vec2<i32>(vec2<u32>(k % tiles_x, k / tiles_x));
            if (face_misses_tile(f, o, 2e-3)) { continue; } // the same for the whole workgroup
            let px = o + lid;
            if (px.x <= r.z && px.y <= r.w) { splat_pixel(f, px); }
        }
    }
}
