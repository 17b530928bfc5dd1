#version 460
// The depth-precision experiment: two planes facing the eye, the farther (red) drawn first, the nearer (green)
// second, each a quad over the whole image at view distance z (push constants), in clip space directly:
// (x·z, y·z, A·z + B, z), so clip z is rounded exactly as a projection would round it.
layout(push_constant) uniform Push {
    float near_z, far_z;  // the two planes' distances
    float a, b;           // clip z = a·z + b
} pc;
layout(location = 0) flat out vec3 colour;
void main() {
    int plane = gl_VertexIndex / 6, k = gl_VertexIndex % 6;
    const vec2 corners[6] = vec2[](vec2(-1.5, -1.5), vec2(1.5, -1.5), vec2(1.5, 1.5), vec2(-1.5, -1.5), vec2(1.5, 1.5),
                                   vec2(-1.5, 1.5));
    float z = plane == 0 ? pc.far_z : pc.near_z;
    colour = plane == 0 ? vec3(1, 0, 0) : vec3(0, 1, 0);
    gl_Position = vec4(corners[k] * z, pc.a * z + pc.b, z);
}
