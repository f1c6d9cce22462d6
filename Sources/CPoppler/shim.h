/* poppler-glib's types only: ib-parse loads the library with dlopen on the
   first PDF (see Sources/IBParse/PDF.swift), so nothing here is linked. */
#include <poppler.h>
