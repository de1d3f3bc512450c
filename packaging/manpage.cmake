# cmake -DPROGRAM=EXE -DOUTPUT=NAME.1 -P manpage.cmake: the manual page, printed by the program
# itself (`--help-man`) from the tables its --help is made of, in English, then NAME.1.gz.
execute_process(COMMAND "${PROGRAM}" --help-man --lang en
                OUTPUT_FILE "${OUTPUT}" RESULT_VARIABLE rc ERROR_VARIABLE errors)
if(NOT rc EQUAL 0)
    file(REMOVE "${OUTPUT}")
    message(FATAL_ERROR "${PROGRAM} --help-man failed (${rc}): ${errors}")
endif()
execute_process(COMMAND gzip -9n -c "${OUTPUT}" OUTPUT_FILE "${OUTPUT}.gz" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    file(REMOVE "${OUTPUT}.gz")
    message(FATAL_ERROR "gzip -9n ${OUTPUT} failed: ${rc}")
endif()
