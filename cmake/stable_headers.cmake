# Header folders that live in pip's isolated build environment
# (/tmp/pip-build-env-XXXX/...: a new random path at every install) are copied
# into the build folder, and the targets compile against the copies. A path in
# a compile command that changes at every install makes ninja recompile every
# file that uses it; the copies keep one path, and a file is rewritten only
# when its content changed, so a reinstall recompiles only what changed.
include_guard(GLOBAL)

# envpool_stable_headers(<out_var> <name> <src_dir>): copy <src_dir>'s files
# to ${CMAKE_BINARY_DIR}/stable_include/<name>, set <out_var> to that folder.
function(envpool_stable_headers out_var name src_dir)
  set(dest "${CMAKE_BINARY_DIR}/stable_include/${name}")
  file(GLOB_RECURSE files RELATIVE "${src_dir}" "${src_dir}/*")
  foreach(f IN LISTS files)
    get_filename_component(d "${dest}/${f}" DIRECTORY)
    file(MAKE_DIRECTORY "${d}")
    file(COPY_FILE "${src_dir}/${f}" "${dest}/${f}" ONLY_IF_DIFFERENT)
  endforeach()
  set(${out_var} "${dest}" PARENT_SCOPE)
endfunction()
