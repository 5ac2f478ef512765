// PostgreSQL's server headers, included as C from C++. The build passes the
// server include directory with -isystem so warnings speak of our code only.
#pragma once

extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
}

#if PG_VERSION_NUM < 150000
#error "uringprobe needs PostgreSQL 15 or later"
#endif
