#version 460
// The depth-precision experiment's planes: flat red (far) or green (near).
layout(location = 0) flat in vec3 colour;
layout(location = 0) out vec4 out_colour;
void main() { out_colour = vec4(colour, 1.0); }
