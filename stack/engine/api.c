/* SPDX-License-Identifier: BSD-3-Clause */
/* Small public helpers: error texts, dtype and op names. */
#include "half.h"
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
	[HC_ERR_WORLD_SIZE] = "ranks disagree on the world size",
	[HC_ERR_ADDR_IN_USE] = "address in use: rendezvous port taken, or two "
		"ranks claim the same rank, IP, MAC, tap or interface",
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

static const struct {
	const char *name;
	size_t size;
} dtypes[HC_DTYPE__MAX] = {
	[HC_DTYPE_INT8] = { "int8", 1 },
	[HC_DTYPE_UINT8] = { "uint8", 1 },
	[HC_DTYPE_INT32] = { "int32", 4 },
	[HC_DTYPE_UINT32] = { "uint32", 4 },
	[HC_DTYPE_INT64] = { "int64", 8 },
	[HC_DTYPE_UINT64] = { "uint64", 8 },
	[HC_DTYPE_FLOAT16] = { "half", 2 },
	[HC_DTYPE_BFLOAT16] = { "bfloat16", 2 },
	[HC_DTYPE_FLOAT32] = { "float", 4 },
	[HC_DTYPE_FLOAT64] = { "double", 8 },
};

static const char *const ops[HC_OP__MAX] = {
	[HC_OP_SUM] = "sum",
	[HC_OP_PROD] = "prod",
	[HC_OP_MIN] = "min",
	[HC_OP_MAX] = "max",
	[HC_OP_AVG] = "avg",
};

size_t
hc_dtype_size(enum hc_dtype dtype)
{
	return (unsigned int)dtype < HC_DTYPE__MAX ? dtypes[dtype].size : 0;
}

const char *
hc_dtype_name(enum hc_dtype dtype)
{
	return (unsigned int)dtype < HC_DTYPE__MAX ? dtypes[dtype].name : "?";
}

const char *
hc_op_name(enum hc_op op)
{
	return (unsigned int)op < HC_OP__MAX ? ops[op] : "?";
}

uint16_t
hc_float_to_half(float f)
{
	return hc_f32_to_f16(f);
}

float
hc_half_to_float(uint16_t h)
{
	return hc_f16_to_f32(h);
}

uint16_t
hc_float_to_bfloat16(float f)
{
	return hc_f32_to_bf16(f);
}

float
hc_bfloat16_to_float(uint16_t h)
{
	return hc_bf16_to_f32(h);
}
