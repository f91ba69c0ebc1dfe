// toml++'s compiled part, built into gpucost in this one file (its documented TOML_IMPLEMENTATION
// mode, TOML_HEADER_ONLY=0 everywhere) rather than loaded from libtomlplusplus.so at every start
// (docs/performance.md, "Issue 39, round 3").
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
