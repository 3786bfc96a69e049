#ifndef CFOYER_LIBCRYPTO_SHIM_H
#define CFOYER_LIBCRYPTO_SHIM_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/rsa.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>

/*
 * Helpers for FoyerCrypto. Swift cannot import function-like or composite macros, and OSSL_PARAM_BLD keeps
 * the parameter-name pointers it is given (it does not copy them), so the names are handed to Swift as
 * pointers to string literals, which have static storage.
 */

/* EVP_PKEY_PUBLIC_KEY: the selection for EVP_PKEY_fromdata that imports a public key with its domain parameters. */
static inline int cfoyer_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

/* OSSL_PARAM names used to import RSA and EC public keys. */
static inline const char *cfoyer_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *cfoyer_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *cfoyer_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *cfoyer_param_public_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }

/* Key type names for EVP_PKEY_CTX_new_from_name, which may keep the pointer for the context's lifetime. */
static inline const char *cfoyer_key_type_rsa(void) { return "RSA"; }
static inline const char *cfoyer_key_type_ec(void) { return "EC"; }

/* The key types of d2i_PrivateKey and i2d_PrivateKey's traditional DER forms (SEC 1 for EC, PKCS #1 for RSA). */
static inline int cfoyer_pkey_ec(void) { return EVP_PKEY_EC; }
static inline int cfoyer_pkey_rsa(void) { return EVP_PKEY_RSA; }

/* The P-256 group name (prime256v1 / secp256r1). */
static inline const char *cfoyer_group_p256(void) { return SN_X9_62_prime256v1; }

/* EVP_CIPHER_CTX_ctrl codes that read and set an AES-GCM tag (macros defined through other macros). */
static inline int cfoyer_ctrl_gcm_get_tag(void) { return EVP_CTRL_GCM_GET_TAG; }
static inline int cfoyer_ctrl_gcm_set_tag(void) { return EVP_CTRL_GCM_SET_TAG; }

#endif
