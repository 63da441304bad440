#include "config.h"
#include "sb_repeat.h"
