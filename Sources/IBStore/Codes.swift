import CSQLite

// SQLite result codes as plain constants, for code that does not import CSQLite.
let SQLITE_CORRUPT_CODE = SQLITE_CORRUPT
let SQLITE_NOTADB_CODE = SQLITE_NOTADB
let SQLITE_FULL_CODE = SQLITE_FULL
