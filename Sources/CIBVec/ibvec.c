#include "ibvec.h"
