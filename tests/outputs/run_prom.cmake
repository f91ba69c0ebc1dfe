# breakeven --prom: the textfile of the bundled sample equals testdata/outputs/breakeven-sample.prom,
# the breakeven table is unchanged by the option, and no temporary file is left beside it.
# GPUCOST_UPDATE_GOLDEN=1 rewrites the expected file.
set(ENV{TZ} "UTC")
set(ENV{LC_ALL} "C")
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(expected ${TESTDATA}/outputs/breakeven-sample.prom)
execute_process(
  COMMAND ${GPUCOST} breakeven --config ${TESTDATA}/samples/workstation.toml --tz Europe/Berlin --host workstation
          ${TESTDATA}/samples/rtx4090_finetune_query.csv --prom ${WORK_DIR}/gpucost.prom
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit status ${rc}\n${err}")
endif()
file(READ ${TESTDATA}/golden/breakeven-sample/stdout.expected table)
if(NOT out STREQUAL table)
  message(FATAL_ERROR "--prom changed the table on stdout:\n${out}")
endif()
file(GLOB leftovers ${WORK_DIR}/*.tmp.*)
if(leftovers)
  message(FATAL_ERROR "temporary files left: ${leftovers}")
endif()
file(READ ${WORK_DIR}/gpucost.prom got)
if("$ENV{GPUCOST_UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE ${expected} "${got}")
  return()
endif()
file(READ ${expected} want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "${WORK_DIR}/gpucost.prom differs from ${expected}")
endif()
