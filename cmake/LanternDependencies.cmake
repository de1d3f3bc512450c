# Every library the build needs is found through lantern_require(), which names the Debian 12
# package that provides it, so a missing one stops configure with one line that says what to
# install instead of a page of CMake. scripts/lib/common.sh installs the same packages
# (LANTERN_DEBIAN_PACKAGES); tests/harness/tst_dependencies.sh fails when a package named here is
# missing from that list, or when a CMakeLists.txt looks for something without lantern_require().
# Adding a dependency: docs/contributing.md (it goes through a fresh Debian 12 root first).

# lantern_missing(WHAT PACKAGES...): stops configure, naming the Debian packages to install.
function(lantern_missing what)
    list(JOIN ARGN " " packages)
    message(FATAL_ERROR
        "${what} was not found. On Debian 12 install it with:\n"
        "    apt-get install --no-install-recommends ${packages}\n"
        "(scripts/run and scripts/test install every package Lantern needs when run as root.)")
endfunction()

# lantern_require(QT MODULE [VERSION V] DEBIAN PACKAGES...)   a Qt 6 module, as Qt6::MODULE
# lantern_require(PACKAGE NAME DEBIAN PACKAGES...)            a CMake package (find_package)
# lantern_require(PKGCONFIG NAME DEBIAN PACKAGES...)          a pkg-config module, as PkgConfig::NAME
# lantern_require(LIBRARY NAME HEADER FILE DEBIAN PACKAGES...) a plain C library, as lantern::NAME
# A macro, not a function: what find_package defines must stay visible to the caller.
macro(lantern_require)
    cmake_parse_arguments(_lr "" "QT;VERSION;PACKAGE;PKGCONFIG;LIBRARY;HEADER" "DEBIAN" ${ARGN})
    if(NOT _lr_DEBIAN)
        message(FATAL_ERROR "lantern_require(${ARGN}): name the Debian package(s) with DEBIAN")
    endif()
    if(_lr_QT)
        find_package(Qt6 ${_lr_VERSION} QUIET COMPONENTS ${_lr_QT})
        if(NOT Qt6${_lr_QT}_FOUND)
            lantern_missing("Qt 6 module ${_lr_QT} ${_lr_VERSION}" ${_lr_DEBIAN})
        endif()
    elseif(_lr_PACKAGE)
        find_package(${_lr_PACKAGE} QUIET)
        if(NOT ${_lr_PACKAGE}_FOUND)
            lantern_missing("${_lr_PACKAGE}" ${_lr_DEBIAN})
        endif()
    elseif(_lr_PKGCONFIG)
        pkg_check_modules(${_lr_PKGCONFIG} QUIET IMPORTED_TARGET ${_lr_PKGCONFIG})
        if(NOT ${_lr_PKGCONFIG}_FOUND)
            lantern_missing("pkg-config module ${_lr_PKGCONFIG}" ${_lr_DEBIAN})
        endif()
    elseif(_lr_LIBRARY AND _lr_HEADER)
        find_path(LANTERN_${_lr_LIBRARY}_INCLUDE_DIR ${_lr_HEADER})
        find_library(LANTERN_${_lr_LIBRARY}_LIBRARY ${_lr_LIBRARY})
        if(NOT LANTERN_${_lr_LIBRARY}_INCLUDE_DIR OR NOT LANTERN_${_lr_LIBRARY}_LIBRARY)
            lantern_missing("${_lr_LIBRARY} (${_lr_HEADER})" ${_lr_DEBIAN})
        endif()
        add_library(lantern::${_lr_LIBRARY} UNKNOWN IMPORTED)
        set_target_properties(lantern::${_lr_LIBRARY} PROPERTIES
            IMPORTED_LOCATION "${LANTERN_${_lr_LIBRARY}_LIBRARY}"
            INTERFACE_INCLUDE_DIRECTORIES "${LANTERN_${_lr_LIBRARY}_INCLUDE_DIR}")
    else()
        message(FATAL_ERROR "lantern_require(${ARGN}): say QT, PACKAGE, PKGCONFIG or LIBRARY with HEADER")
    endif()
endmacro()
