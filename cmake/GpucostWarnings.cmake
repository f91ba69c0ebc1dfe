# Warning flags for gpucost's own targets only (linked PRIVATE, never exported).
add_library(gpucost_warnings INTERFACE)
target_compile_options(gpucost_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Woverloaded-virtual -Wdouble-promotion -Wformat=2
  -Wimplicit-fallthrough
  $<$<BOOL:${GPUCOST_WERROR}>:-Werror>)
