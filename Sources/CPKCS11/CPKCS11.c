/* Types and constants only (include/CPKCS11.h); SwiftPM builds a C target from at least one source. */
#include "CPKCS11.h"
