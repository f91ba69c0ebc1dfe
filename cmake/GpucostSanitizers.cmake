# GPUCOST_SANITIZE="address;undefined" builds every gpucost target with those sanitizers.
add_library(gpucost_sanitizers INTERFACE)
if(GPUCOST_SANITIZE)
  list(JOIN GPUCOST_SANITIZE "," _gpucost_san)
  target_compile_options(gpucost_sanitizers INTERFACE
    -fsanitize=${_gpucost_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(gpucost_sanitizers INTERFACE -fsanitize=${_gpucost_san})
  message(STATUS "gpucost: sanitizers: ${_gpucost_san}")
endif()
