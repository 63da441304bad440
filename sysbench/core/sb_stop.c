/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stop flag's storage (sb_stop.h). Its own unit so that every layer
 * that polls the flag (drivers, pacer sleeps, workers) links against the
 * core, not against the engine's signal code that also sets it.
 */
#include "core/sb_stop.h"

int sb_stop_reason_value;
