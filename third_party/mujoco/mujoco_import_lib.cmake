# An import library for the mujoco wheel's mujoco.dll (shipped without one),
# for MSVC-ABI toolchains (cl, clang-cl): its exports listed in a .def by
# dll_exports.py, then `lib /def` (CMAKE_AR is lib.exe there). GNU ld
# (MinGW) links the DLL directly and needs none of this.
function(envpool_mujoco_import_lib dll out_var)
  set(_def "${CMAKE_BINARY_DIR}/mujoco/mujoco.def")
  set(_lib "${CMAKE_BINARY_DIR}/mujoco/mujoco.lib")
  file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/mujoco")
  execute_process(
    COMMAND "${Python_EXECUTABLE}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/dll_exports.py" "${dll}" "${_def}"
    RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "cannot list the exports of ${dll}: ${_err}")
  endif()
  execute_process(
    COMMAND "${CMAKE_AR}" /nologo /def:${_def} /machine:x64 /out:${_lib}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "lib /def failed for ${dll}: ${_out}${_err}")
  endif()
  set(${out_var} "${_lib}" PARENT_SCOPE)
endfunction()
