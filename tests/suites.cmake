# Registers one ctest per doctest suite found in the test sources.
foreach(src IN LISTS TEST_SOURCES)
  file(STRINGS "${src}" suite_lines REGEX "^TEST_SUITE\\(\"[^\"]+\"")
  foreach(line IN LISTS suite_lines)
    string(REGEX REPLACE "^TEST_SUITE\\(\"([^\"]+)\".*" "\\1" suite "${line}")
    add_test(NAME "${suite}" COMMAND tilecast_tests "--test-suite=${suite}" --no-intro)
    set_tests_properties("${suite}" PROPERTIES
      ENVIRONMENT "TILECAST_DATA_DIR=${TILECAST_DATA_DIR}")
  endforeach()
endforeach()
