/* SPDX-License-Identifier: BSD-3-Clause */
/* Small public helpers: error texts, dtype and op names. */
#include "hypercomm.h"

static const char *const errors[HC_ERR__MAX] = {
	[HC_OK] = "success",
	[HC_ERR_INVAL] = "invalid argument",
	[HC_ERR_NOMEM] = "out of memory or mbufs",
	[HC_ERR_CONFIG] = "invalid cluster file",
	[HC_ERR_PORT] = "port bring-up failed",
	[HC_ERR_LINK_DOWN] = "link down",
	[HC_ERR_INIT_TIMEOUT] = "peers missing at init",
	[HC_ERR_TIMEOUT] = "collective timed out",
	[HC_ERR_PEER_LOST] = "peer lost",
	[HC_ERR_MISMATCH] = "ranks disagree on the collective's arguments",
	[HC_ERR_ABORTED] = "communicator aborted by an earlier error",
	[HC_ERR_UNSUPPORTED] = "unsupported",
	[HC_ERR_INTERNAL] = "internal error",
};

const char *
hc_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= HC_ERR__MAX)
		return "unknown error";
	return errors[err];
}

size_t
hc_dtype_size(enum hc_dtype dtype)
{
	switch (dtype) {
	case HC_DTYPE_INT32:
	case HC_DTYPE_FLOAT32:
		return 4;
	case HC_DTYPE_INT64:
	case HC_DTYPE_FLOAT64:
		return 8;
	default:
		return 0;
	}
}

const char *
hc_dtype_name(enum hc_dtype dtype)
{
	switch (dtype) {
	case HC_DTYPE_INT32:
		return "int32";
	case HC_DTYPE_INT64:
		return "int64";
	case HC_DTYPE_FLOAT32:
		return "float";
	case HC_DTYPE_FLOAT64:
		return "double";
	default:
		return "?";
	}
}

const char *
hc_op_name(enum hc_op op)
{
	switch (op) {
	case HC_OP_SUM:
		return "sum";
	case HC_OP_PROD:
		return "prod";
	case HC_OP_MIN:
		return "min";
	case HC_OP_MAX:
		return "max";
	default:
		return "?";
	}
}
