/* SPDX-License-Identifier: MIT */
/*
 * fasttrap_abi.h - transitional: the fasttrap ABI lives in
 * sdk/include/usdt/fasttrap_abi.h.  Only dtrace-G/trace.c still includes
 * it by its old name, while that file is being split; once the consumer
 * includes "usdt/fasttrap_abi.h", delete this file.
 */
#include "usdt/fasttrap_abi.h"
