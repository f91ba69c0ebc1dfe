# The stages agree: `prep | extract - | breakeven -` prints exactly what `breakeven` prints on
# the raw log in one process.
set(ENV{TZ} "UTC")
set(cfg ${TESTDATA}/samples/workstation.toml)
set(trace_cfg ${TESTDATA}/trace/projection.toml)
set(log ${TESTDATA}/samples/rtx4090_finetune_query.csv)
execute_process(
  COMMAND ${GPUCOST} prep --tz Europe/Berlin --host ws ${log}
  COMMAND ${GPUCOST} extract -
  COMMAND ${GPUCOST} breakeven --json --config ${cfg} -
  OUTPUT_VARIABLE piped RESULTS_VARIABLE rcs)
execute_process(
  COMMAND ${GPUCOST} breakeven --json --config ${cfg} --tz Europe/Berlin --host ws ${log}
  OUTPUT_VARIABLE direct RESULT_VARIABLE rc)
if(NOT rcs STREQUAL "0;0;0" OR NOT rc EQUAL 0)
  message(FATAL_ERROR "exit statuses ${rcs} / ${rc}")
endif()
if(NOT piped STREQUAL direct)
  message(FATAL_ERROR "piped stages differ from the in-process run:\n${piped}\n---\n${direct}")
endif()
if(NOT direct MATCHES "\"premium\"")
  message(FATAL_ERROR "no premium in the output:\n${direct}")
endif()

# A trace's step split travels too: the speed projected from it (or the reason there is none)
# is the same through the streams as in one process, for the chosen offer and every ranked one.
set(trace ${TESTDATA}/trace/rtx4090_two_steps.pt.trace.json)
execute_process(
  COMMAND ${GPUCOST} prep --tz Europe/Berlin --host ws ${log} ${trace}
  COMMAND ${GPUCOST} extract -
  COMMAND ${GPUCOST} breakeven --json --compare-clouds --cloud runpod-h100-sxm --config ${trace_cfg} -
  OUTPUT_VARIABLE piped RESULTS_VARIABLE rcs)
execute_process(
  COMMAND ${GPUCOST} breakeven --json --compare-clouds --cloud runpod-h100-sxm --config ${trace_cfg} --tz Europe/Berlin
          --host ws ${log} ${trace}
  OUTPUT_VARIABLE direct RESULT_VARIABLE rc)
if(NOT rcs STREQUAL "0;0;0" OR NOT rc EQUAL 0)
  message(FATAL_ERROR "with a trace: exit statuses ${rcs} / ${rc}")
endif()
if(NOT piped STREQUAL direct)
  message(FATAL_ERROR "with a trace: piped stages differ from the in-process run:\n${piped}\n---\n${direct}")
endif()
if(NOT direct MATCHES "speed_projection")
  message(FATAL_ERROR "with a trace: no speed projection (nor its reason) in the output:\n${direct}")
endif()
