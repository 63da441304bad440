#include "config.h"
#include "sb_findmax.h"
