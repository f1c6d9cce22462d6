/* libxml2 through one header. Debian builds libxml2 with ICU; its ICU
   declarations clash with the ICU that Foundation carries, so drop them. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
