// The Catch2 main of gpucost_unit_tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
