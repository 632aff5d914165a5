# Makes the Debian package of the build with CPack and checks that it holds
# what `cmake --install` installs for a consumer, under /usr.
file(REMOVE_RECURSE ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_CPACK_COMMAND} -G DEB --config ${PROJECT_BINARY_DIR}/CPackConfig.cmake -B ${WORK_DIR})
file(GLOB debs ${WORK_DIR}/libcoupler-dev_*.deb)
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one libcoupler-dev_*.deb in ${WORK_DIR}, found: ${debs}")
endif()
run(dpkg-deb --contents ${debs})
foreach(expected
    ./usr/include/coupler/coupler.hpp
    ./usr/include/coupler/wire/version.hpp
    ./usr/lib/libcoupler.a
    ./usr/lib/cmake/coupler/couplerConfig.cmake
    ./usr/share/coupler/coupler.proto)
  string(FIND "${output}" " ${expected}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the package has no ${expected}:\n${output}")
  endif()
endforeach()
string(FIND "${output}" "_native" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "the package holds the Python extension:\n${output}")
endif()
