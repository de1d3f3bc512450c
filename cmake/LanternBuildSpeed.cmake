# What halves the CPU time of a clean build and of a rebuild after one edited .cpp; the choices
# and their measurements are in docs/contributing.md ("Build time"). Each is an option, so a
# measurement can take it out.
#  - unity batches: a batch of 8 files parses Qt's headers once instead of 8 times; the tests of
#    a folder are one executable (tests/CMakeLists.txt), so they are batched too.
#  - lld instead of GNU ld when the compiler can use it: the ~50 executables (each test is one)
#    link in a fifth of the time, which is most of a rebuild after one edited .cpp.
#  - ccache when it is installed (scripts/test installs it): a tree rebuilt from scratch, or
#    configured again, compiles from the cache.
#  - test drivers at -Og -g1: tests/CMakeLists.txt (lantern_test_settings).
#  - moc reads the project's headers only (lantern_moc_project_headers below): with Qt's include
#    directories it parses Qt's headers again for every file it runs on.
include(CheckLinkerFlag)

option(LANTERN_CCACHE "Compile through ccache when it is installed" ON)
option(LANTERN_LLD "Link with lld when the compiler can use it" ON)
option(LANTERN_MOC_PROJECT_HEADERS "Run moc with the project's include directories only" ON)
option(LANTERN_UNITY "Compile the sources of a target in batches (unity build)" ON)

if(LANTERN_UNITY)
    set(CMAKE_UNITY_BUILD ON)
    set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
endif()
set(LANTERN_TEST_UNITY_BATCH_SIZE 8 CACHE STRING "Test files per unity batch (tests/CMakeLists.txt)")

if(LANTERN_CCACHE)
    find_program(LANTERN_CCACHE_PROGRAM ccache)
    if(LANTERN_CCACHE_PROGRAM)
        # base_dir and hash_dir=false: meant to let another clone hit the same entries
        # (docs/contributing.md, "Build time").
        set(launcher ${CMAKE_COMMAND} -E env
            CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
            CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime
            ${LANTERN_CCACHE_PROGRAM})
        set(CMAKE_CXX_COMPILER_LAUNCHER ${launcher})
        message(STATUS "Compiling through ccache (${LANTERN_CCACHE_PROGRAM})")
    else()
        message(STATUS "ccache not found (Debian package ccache): compiling without a cache")
    endif()
endif()

if(LANTERN_LLD)
    check_linker_flag(CXX -fuse-ld=lld LANTERN_HAVE_LLD)
    if(LANTERN_HAVE_LLD)
        add_link_options(-fuse-ld=lld)
    else()
        message(STATUS "lld not found (Debian package lld): linking with the default linker")
    endif()
endif()

# Called once every target exists (CMakeLists.txt): each AUTOMOC target runs moc through
# cmake/lantern-moc.sh, which drops the include directories outside the source and build trees.
# The generated code is the same byte for byte (docs/contributing.md, "Build time").
function(lantern_moc_project_headers)
    if(NOT LANTERN_MOC_PROJECT_HEADERS)
        return()
    endif()
    get_target_property(LANTERN_REAL_MOC Qt6::moc IMPORTED_LOCATION)
    if(NOT LANTERN_REAL_MOC)
        get_target_property(LANTERN_REAL_MOC Qt6::moc LOCATION)
    endif()
    set(wrapper ${PROJECT_BINARY_DIR}/lantern-moc.sh)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/lantern-moc.sh.in ${wrapper}
        FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                         WORLD_READ WORLD_EXECUTE
        @ONLY)
    set(directories ${PROJECT_SOURCE_DIR})
    while(directories)
        list(POP_FRONT directories directory)
        get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
        foreach(target IN LISTS targets)
            get_target_property(automoc ${target} AUTOMOC)
            if(automoc)
                set_target_properties(${target} PROPERTIES AUTOMOC_EXECUTABLE ${wrapper})
            endif()
        endforeach()
        get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
        list(APPEND directories ${subdirectories})
    endwhile()
endfunction()
