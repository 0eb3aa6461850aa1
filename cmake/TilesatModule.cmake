# tilesat_add_module(NAME [DEPS targets...] [PRIVATE_DEPS targets...])
#
# One library per module folder: sources are <module>/src/*.cpp (recursively), public headers
# are <module>/include/tilesat/<module>/. The target is tilesat_<name>, exported as
# tilesat::<name>.
function(tilesat_add_module name)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  set(target tilesat_${name})
  if(NOT srcs)
    # A module of headers only (so far): an interface library.
    add_library(${target} INTERFACE)
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
    target_include_directories(${target} INTERFACE
      $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(${target} INTERFACE ${ARG_DEPS})
  else()
    add_library(${target} ${srcs})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME tilesat_${name}
                                               POSITION_INDEPENDENT_CODE ON)
    target_include_directories(${target} PUBLIC
      $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
      PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
    target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  endif()
  add_library(tilesat::${name} ALIAS ${target})
  install(TARGETS ${target} EXPORT tilesatTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()
