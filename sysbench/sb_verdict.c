#include "config.h"
#include "sb_verdict.h"
