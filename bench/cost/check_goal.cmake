# Runs cost_accuracy on one file of GEMM measurements and fails unless the overall line meets the
# accuracy goal (cost/README.md): median APE <= 10%, p90 APE <= 25%, Kendall tau >= 0.95.
# With -DFIT=other.csv the fetch latency is first fitted on that file's rows alone (--fit-on).
# cmake -DEXE=path/to/cost_accuracy -DCSV=path/to/gemm_flops_n150.csv [-DFIT=...] -P check_goal.cmake
# Any other report with an 'overall' line (op_accuracy) is checked the same way; -DMEDIAN, -DP90
# and -DTAU replace the goal's bounds (a bound given as "" is not checked).
if(NOT DEFINED MEDIAN)
  set(MEDIAN 10)
endif()
if(NOT DEFINED P90)
  set(P90 25)
endif()
if(NOT DEFINED TAU)
  set(TAU 0.95)
endif()
if(DEFINED FIT)
  execute_process(COMMAND "${EXE}" --fit-on "${FIT}" "${CSV}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
else()
  execute_process(COMMAND "${EXE}" "${CSV}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
endif()
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} exited with ${rc}")
endif()
if(NOT out MATCHES "overall median_ape=([0-9.]+) p90_ape=([0-9.]+) kendall_tau=(-?[0-9.]+) rows=([0-9]+)")
  message(FATAL_ERROR "no 'overall' line in the output")
endif()
set(median ${CMAKE_MATCH_1})
set(p90 ${CMAKE_MATCH_2})
set(tau ${CMAKE_MATCH_3})
if((NOT MEDIAN STREQUAL "" AND median GREATER MEDIAN) OR (NOT P90 STREQUAL "" AND p90 GREATER P90)
   OR (NOT TAU STREQUAL "" AND tau LESS TAU))
  message(FATAL_ERROR "accuracy goal missed: median ${median} (<= ${MEDIAN}), p90 ${p90} (<= ${P90}), tau ${tau} (>= ${TAU})")
endif()
