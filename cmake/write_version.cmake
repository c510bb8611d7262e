# Run at every build (target nmsim_version): writes OUT, the definition of nmsim::version(), from
# `git describe` of SOURCE_DIR. configure_file rewrites it only when the text changes, so a build
# without new commits or edits relinks nothing, and a trace always names the commit it was built
# from, not the one CMake was configured at.
set(NMSIM_VERSION_STRING "${PROJECT_VERSION}")
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty
                  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE _git_desc
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_git_desc)
    set(NMSIM_VERSION_STRING "${PROJECT_VERSION}+${_git_desc}")
  endif()
endif()
configure_file(${SOURCE_DIR}/platforms/common/version.cpp.in ${OUT} @ONLY)
