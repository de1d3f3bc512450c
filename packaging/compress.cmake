# cmake -DINPUT=FILE -DOUTPUT=FILE.gz -P compress.cmake: gzip -9n, as Debian policy asks for
# documentation (no name or time stamp in the header, so the same input gives the same bytes).
execute_process(COMMAND gzip -9n -c "${INPUT}" OUTPUT_FILE "${OUTPUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    file(REMOVE "${OUTPUT}")
    message(FATAL_ERROR "gzip -9n ${INPUT} failed: ${rc}")
endif()
