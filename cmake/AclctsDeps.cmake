# Third-party libraries of the project: OpenMP, MPFR (+GMP), libyaml, cmocka, jansson,
# libcrypto, libarchive, dl, m.
find_package(OpenMP REQUIRED COMPONENTS C)
find_package(PkgConfig REQUIRED)

find_path(MPFR_INCLUDE_DIR mpfr.h REQUIRED)
find_library(MPFR_LIBRARY mpfr REQUIRED)
find_library(GMP_LIBRARY gmp REQUIRED)
add_library(aclcts::mpfr INTERFACE IMPORTED)
target_include_directories(aclcts::mpfr INTERFACE ${MPFR_INCLUDE_DIR})
target_link_libraries(aclcts::mpfr INTERFACE ${MPFR_LIBRARY} ${GMP_LIBRARY})

pkg_check_modules(YAML REQUIRED IMPORTED_TARGET yaml-0.1)
add_library(aclcts::yaml ALIAS PkgConfig::YAML)

# jansson: every JSON file aclcts reads and writes (results, manifest, case.json, ATK imports)
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
add_library(aclcts::jansson ALIAS PkgConfig::JANSSON)

pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
add_library(aclcts::cmocka ALIAS PkgConfig::CMOCKA)

find_library(M_LIBRARY m REQUIRED)
find_package(Threads REQUIRED)

# Certification packages: libcrypto (SHA-256), libarchive (the package's .tar.gz).
pkg_check_modules(LIBCRYPTO REQUIRED IMPORTED_TARGET libcrypto)
add_library(aclcts::crypto ALIAS PkgConfig::LIBCRYPTO)
pkg_check_modules(LIBARCHIVE REQUIRED IMPORTED_TARGET libarchive)
add_library(aclcts::archive ALIAS PkgConfig::LIBARCHIVE)
