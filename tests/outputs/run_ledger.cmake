cmake_minimum_required(VERSION 3.25)  # quoted strings in if() are not variable names
# breakeven --ledger and history, end to end: three breakeven processes append to one new
# ledger at the same time (none may fail); three runs appended one after the other are listed
# by history as in testdata/outputs/history*.expected (--host and --since filter; --by fingerprint
# over runs that count work, and the cost per unit columns of their CSV); a file that is
# not SQLite is refused with exit status 2 by both commands. GPUCOST_UPDATE_GOLDEN=1 rewrites them.
set(ENV{TZ} "UTC")
set(ENV{LC_ALL} "C")
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(ledger ${WORK_DIR}/runs.sqlite)
set(ws_run ${GPUCOST} breakeven -q --config ${TESTDATA}/samples/workstation.toml --tz Europe/Berlin --host workstation
       ${TESTDATA}/samples/rtx4090_finetune_query.csv)
set(srv ${GPUCOST} breakeven -q --config ${TESTDATA}/samples/a100x2.toml --tz UTC --host srv
        ${TESTDATA}/samples/a100x2_train_dmon_DT.txt)
# The COMMANDs of one execute_process run at the same time (a pipeline; each writes to a file).
set(concurrent ${WORK_DIR}/concurrent.sqlite)
execute_process(COMMAND ${ws_run} --ledger ${concurrent} -o ${WORK_DIR}/1.txt
                COMMAND ${srv} --ledger ${concurrent} -o ${WORK_DIR}/2.txt
                COMMAND ${ws_run} --ledger ${concurrent} -o ${WORK_DIR}/3.txt --set cloud.rate_per_hour=0.5
                RESULTS_VARIABLE rcs ERROR_VARIABLE err)
if(NOT rcs STREQUAL "0;0;0")
  message(FATAL_ERROR "concurrent appends: exit statuses ${rcs}\n${err}")
endif()
execute_process(COMMAND ${GPUCOST} history --ledger ${concurrent} --csv OUTPUT_VARIABLE csv RESULT_VARIABLE rc)
string(REGEX MATCHALL "\n" newlines "${csv}")
list(LENGTH newlines lines)
if(NOT rc EQUAL 0 OR NOT lines EQUAL 4)
  message(FATAL_ERROR "history --csv after concurrent appends: exit ${rc}, ${lines} lines (want a header and 3 runs):\n${csv}")
endif()

# One after the other: the run ids are known, so the listing is golden.
function(append_run name)
  execute_process(COMMAND ${ARGN} --ledger ${ledger} -o ${WORK_DIR}/${name}.txt RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "breakeven --ledger (${name}): exit status ${rc}")
  endif()
endfunction()
append_run(workstation ${ws_run})
append_run(server ${srv})
append_run(workstation-cheap-cloud ${ws_run} --set cloud.rate_per_hour=0.5)

set(history_ledger ${ledger})
function(expect_output name)
  execute_process(COMMAND ${GPUCOST} history --ledger ${history_ledger} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "history ${ARGN}: exit status ${rc}\n${err}")
  endif()
  set(expected ${TESTDATA}/outputs/${name})
  if("$ENV{GPUCOST_UPDATE_GOLDEN}" STREQUAL "1")
    file(WRITE ${expected} "${out}")
    return()
  endif()
  file(READ ${expected} want)
  if(NOT out STREQUAL want)
    file(WRITE ${WORK_DIR}/${name}.actual "${out}")
    message(FATAL_ERROR "history ${ARGN} differs from ${expected} (actual: ${WORK_DIR}/${name}.actual)")
  endif()
endfunction()
expect_output(history.expected)
expect_output(history-host.expected --host workstation)
expect_output(history-since.expected --since 2024-06-13T00:00:00Z)

# Runs that count work (testdata/work/): the cost per unit in the ledger, trended per software
# stack by --by fingerprint (a features document carries no fingerprint: the stack reads "?").
set(work_ledger ${WORK_DIR}/work.sqlite)
set(work_run ${GPUCOST} breakeven -q --config ${TESTDATA}/work/reference.toml --host work
    ${TESTDATA}/work/reference.features.json)
execute_process(COMMAND ${work_run} --ledger ${work_ledger} -o ${WORK_DIR}/work1.txt RESULT_VARIABLE rc1)
execute_process(COMMAND ${work_run} --set cloud.busy_share=sm_active --set cloud.rate_per_hour=0.5
                        --ledger ${work_ledger} -o ${WORK_DIR}/work2.txt RESULT_VARIABLE rc2)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "breakeven --ledger (work): exit statuses ${rc1} ${rc2}")
endif()
set(history_ledger ${work_ledger})
expect_output(history-fingerprint.expected --by fingerprint)
# The CSV holds run_at (not golden): the cost per step and per 1M tokens of the first run, by hand
# 1.863710 / 1200 and / 157.2864 (docs/cost-model.md, "Cost per unit of work"), and the second's busy source.
execute_process(COMMAND ${GPUCOST} history --ledger ${work_ledger} --csv OUTPUT_VARIABLE csv RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT csv MATCHES ",0\\.75,util,0\\.0015530919[0-9]*,0\\.0026388888[0-9]*,"
   OR NOT csv MATCHES ",0\\.0118491514[0-9]*,0\\.0201331244[0-9]*," OR NOT csv MATCHES ",0\\.45,sm_active,")
  message(FATAL_ERROR "history --csv of the work ledger: exit ${rc}, want the cost per unit columns:\n${csv}")
endif()
set(history_ledger ${ledger})

# Not a database: a clear error and exit status 2, and the file is left as it was.
file(WRITE ${WORK_DIR}/notes.txt "these are notes, not an SQLite database; gpucost must not touch them\n")
foreach(cmd breakeven history)
  if(cmd STREQUAL breakeven)
    set(args ${ws_run} --ledger ${WORK_DIR}/notes.txt -o ${WORK_DIR}/4.txt)
  else()
    set(args ${GPUCOST} history --ledger ${WORK_DIR}/notes.txt)
  endif()
  execute_process(COMMAND ${args} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "not a database" OR NOT err MATCHES "hint: the file is not a gpucost ledger")
    message(FATAL_ERROR "${cmd} on a text file as ledger: exit ${rc}, stderr:\n${err}")
  endif()
endforeach()
if(EXISTS ${WORK_DIR}/4.txt)
  message(FATAL_ERROR "breakeven wrote its output although the ledger was unusable")
endif()
file(READ ${WORK_DIR}/notes.txt notes)
if(NOT notes MATCHES "^these are notes")
  message(FATAL_ERROR "the text file was changed")
endif()

# history does not create a ledger: a wrong path is an error, not an empty listing.
execute_process(COMMAND ${GPUCOST} history --ledger ${WORK_DIR}/typo.sqlite OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR EXISTS ${WORK_DIR}/typo.sqlite)
  message(FATAL_ERROR "history on a missing ledger: exit ${rc}, stderr:\n${err}")
endif()
