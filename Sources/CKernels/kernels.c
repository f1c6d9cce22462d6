#include "ib_kernels.h"
