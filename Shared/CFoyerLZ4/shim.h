#ifndef CFOYER_LZ4_SHIM_H
#define CFOYER_LZ4_SHIM_H
#include <lz4.h>
#endif
