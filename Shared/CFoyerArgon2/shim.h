#ifndef CFOYER_ARGON2_SHIM_H
#define CFOYER_ARGON2_SHIM_H
#include <argon2.h>
#endif
