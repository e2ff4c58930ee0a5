// libpq (the PostgreSQL project's C client), loaded at run time (dlopen), for the
// shared study store (Sources/StudyStore, docs/store.md).
//
// Dossier does not link libpq: a binary that never opens a PostgreSQL database never
// loads it. These are Dossier's own declarations of libpq's stable C API (libpq-fe.h);
// the connection and result handles are opaque pointers.
#ifndef DOSSIER_CPOSTGRES_RUNTIME_H
#define DOSSIER_CPOSTGRES_RUNTIME_H
#include <stddef.h>

/// Loads libpq once per process ("libpq.so.5", or the file DOSSIER_LIBPQ names).
/// Returns 0 on success; otherwise -1 and a message in `error` (NUL-terminated).
int dossier_pq_load(char *error, size_t error_len);

/// PQconnectdb(conninfo): a key=value string or a postgres:// URI; "" takes every
/// setting from the PG* environment variables, the service file and ~/.pgpass.
void *dossier_pq_connect(const char *conninfo);
/// 0 when the connection is good (CONNECTION_OK).
int dossier_pq_status_ok(void *conn);
const char *dossier_pq_error_message(void *conn);
const char *dossier_pq_host(void *conn);
const char *dossier_pq_port(void *conn);
const char *dossier_pq_db(void *conn);
const char *dossier_pq_user(void *conn);
void dossier_pq_finish(void *conn);

/// PQexec: runs `sql`, which may hold several statements and no parameters.
void *dossier_pq_exec(void *conn, const char *sql);
/// PQexecParams with every parameter given as text (format 0, type inferred by the
/// server) except those whose `binary` flag is set (format 1, sent as bytea), and the
/// results asked for in binary format when `binary_results` is set.
void *dossier_pq_exec_params(void *conn, const char *sql, int count, const char *const *values,
                             const int *lengths, const int *binary, int binary_results);
/// 1 when the result is a success (PGRES_COMMAND_OK or PGRES_TUPLES_OK).
int dossier_pq_result_ok(void *result);
/// The SQLSTATE of a failed result ("" when none) and its primary message.
const char *dossier_pq_result_sqlstate(void *result);
const char *dossier_pq_result_message(void *result);
int dossier_pq_ntuples(void *result);
int dossier_pq_nfields(void *result);
unsigned int dossier_pq_ftype(void *result, int field);
int dossier_pq_is_null(void *result, int row, int field);
const char *dossier_pq_value(void *result, int row, int field);
int dossier_pq_length(void *result, int row, int field);
/// PQcmdTuples: the rows an INSERT, UPDATE or DELETE touched, as text.
const char *dossier_pq_cmd_tuples(void *result);
void dossier_pq_clear(void *result);

#endif
