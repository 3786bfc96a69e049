#ifndef CFOYER_SQLITE_SHIM_H
#define CFOYER_SQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT (SQLite copies the bound value before the call returns), which Swift cannot import: it is a
/// macro casting -1 to a function pointer.
static inline sqlite3_destructor_type foyer_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
#endif
