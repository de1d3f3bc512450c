# What halves the CPU time of a clean build and of a rebuild after one edited .cpp; the choices
# and their measurements are in docs/contributing.md ("Build time"). Each is an option, so a
# measurement can take it out.
#  - unity batches: a batch of 8 files parses Qt's headers once instead of 8 times.
#  - precompiled Qt headers for the tests, one set per test folder (lantern_pch_host below).
#  - lld instead of GNU ld when the compiler can use it: the ~50 executables (each test is one)
#    link in a fifth of the time, which is most of a rebuild after one edited .cpp.
#  - ccache when it is installed (scripts/test installs it): a tree rebuilt from scratch, or
#    configured again, compiles from the cache.
#  - test drivers at -Og -g1: tests/CMakeLists.txt (lantern_test_settings).
include(CheckLinkerFlag)

option(LANTERN_CCACHE "Compile through ccache when it is installed" ON)
option(LANTERN_LLD "Link with lld when the compiler can use it" ON)
option(LANTERN_PCH "Precompile the Qt headers the tests include" ON)
option(LANTERN_UNITY "Compile the sources of a target in batches (unity build)" ON)

if(LANTERN_UNITY)
    set(CMAKE_UNITY_BUILD ON)
    set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
endif()

if(LANTERN_CCACHE)
    find_program(LANTERN_CCACHE_PROGRAM ccache)
    if(LANTERN_CCACHE_PROGRAM)
        # base_dir and hash_dir=false: meant to let another clone hit the same entries (not yet
        # shown: docs/contributing.md); pch_defines,time_macros: what ccache needs with a PCH.
        set(launcher ${CMAKE_COMMAND} -E env
            CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
            CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
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

# The Qt and standard headers most test files include, precompiled once per test folder.
set(LANTERN_PCH_CORE
    <QByteArray> <QDateTime> <QHash> <QJsonArray> <QJsonDocument> <QJsonObject> <QList>
    <QObject> <QString> <QStringList> <QVariant> <QSqlDatabase> <QSqlQuery>
    <algorithm> <functional> <memory> <optional> <vector>)
set(LANTERN_PCH_WIDGETS
    <QComboBox> <QHBoxLayout> <QHeaderView> <QLabel> <QLineEdit> <QPushButton> <QTableView>
    <QToolButton> <QVBoxLayout> <QWidget>)
set(LANTERN_PCH_TEST <QCoreApplication> <QProcess> <QSignalSpy> <QTemporaryDir> <QTest>)

# lantern_pch_host(NAME [WIDGETS] LIBRARIES LIBS...): an object library of one empty file that
# links LIBS and precompiles the test headers (and the widget ones) for targets compiled with the
# same flags and definitions to reuse (target_precompile_headers(... REUSE_FROM NAME)): GCC refuses
# a PCH built with others, and -Winvalid-pch with -Werror makes that an error, not a slow build.
function(lantern_pch_host name)
    cmake_parse_arguments(ARG "WIDGETS" "" "LIBRARIES" ${ARGN})
    set(source ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp)
    file(CONFIGURE OUTPUT ${source} CONTENT "// Compiles the precompiled headers that other targets reuse.\n")
    add_library(${name} OBJECT ${source})
    target_link_libraries(${name} PRIVATE ${ARG_LIBRARIES})
    # Nothing to moc; no unity file around the one source (CMake makes the PCH for a target only
    # when one of its sources uses it).
    set_target_properties(${name} PROPERTIES AUTOMOC OFF UNITY_BUILD OFF)
    set(headers ${LANTERN_PCH_CORE} ${LANTERN_PCH_TEST})
    if(ARG_WIDGETS)
        list(APPEND headers ${LANTERN_PCH_WIDGETS})
    endif()
    target_precompile_headers(${name} PRIVATE ${headers})
endfunction()
