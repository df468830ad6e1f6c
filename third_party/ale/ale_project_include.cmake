# Included by ALE's own top-level CMakeLists.txt right after its project()
# call (envpool's ale.cmake passes it as CMAKE_PROJECT_ale_INCLUDE), so that
# envpool decides how ALE is compiled without patching ALE's sources.
#
# ALE's src/ale/CMakeLists.txt forces CMAKE_INTERPROCEDURAL_OPTIMIZATION on,
# so its static library holds slim GCC LTO objects (bytecode only). Those get
# optimised again as part of whatever they are finally linked into; inside
# envpool's extension that is one LTO unit with pybind11, the engine and the
# other families, and GCC's inliner runs out of its unit-wide growth budget
# (--param inline-unit-growth) before it reaches the emulator: System::peek /
# poke stay out of line in M6502Low::execute (490 calls) and the emulator runs
# ~4% slower per CPU-second than the same sources in ale-py's wheel. Compiled
# as ordinary -O3 objects (each ALE translation unit optimised on its own, as
# with IPO off) it is as fast as the wheel's; see third_party/ale/ale.cmake.
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _envpool_ale_no_ipo)
function(_envpool_ale_no_ipo)
  foreach(target ale ale-lib)
    if(TARGET ${target})
      set_target_properties(${target} PROPERTIES INTERPROCEDURAL_OPTIMIZATION OFF)
    endif()
  endforeach()
endfunction()
