// No code: this module exists so that a cold build can compile every external dependency
// before the package's own modules (see its entry in Package.swift and debug_build in
// scripts/lib/setup.sh).
