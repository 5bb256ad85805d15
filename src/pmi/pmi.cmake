# pmi.cmake — build settings of the PMI layer (included by src/CMakeLists.txt
# after the layer targets exist).
#
# PMIx is optional: with libpmix-dev's headers found here, pmix_backend.c is
# compiled for real (UZ_HAVE_PMIX) and loads libpmix.so.2 with dlopen when a
# PMIx launcher starts the job; without them it only explains what is
# missing.  No link-time dependency on libpmix either way.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(UZ_PMIX QUIET pmix)
endif()
find_path(UZ_PMIX_INCLUDE_DIR pmix.h
  HINTS ${UZ_PMIX_INCLUDE_DIRS}
  PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/pmix2/include /usr/include/pmix
        /usr/local/include /opt/pmix/include)
if(UZ_PMIX_INCLUDE_DIR AND TARGET uz_pmi)
  message(STATUS "PMIx headers: ${UZ_PMIX_INCLUDE_DIR} (PMIx launch support on)")
  target_include_directories(uz_pmi SYSTEM PRIVATE ${UZ_PMIX_INCLUDE_DIR})
  target_compile_definitions(uz_pmi PRIVATE UZ_HAVE_PMIX=1)
  set(UZURA_HAVE_PMIX ON CACHE INTERNAL "")
else()
  message(STATUS "PMIx headers not found (libpmix-dev): built without PMIx launch support")
  set(UZURA_HAVE_PMIX OFF CACHE INTERNAL "")
endif()
target_link_libraries(mpi_abi PRIVATE ${CMAKE_DL_LIBS})
