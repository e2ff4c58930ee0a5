// See include/cpostgres_runtime.h. The constants are libpq's documented ABI values
// (ConnStatusType CONNECTION_OK = 0; ExecStatusType PGRES_COMMAND_OK = 1,
// PGRES_TUPLES_OK = 2; PG_DIAG_SQLSTATE 'C', PG_DIAG_MESSAGE_PRIMARY 'M').
#include "cpostgres_runtime.h"
#include "library_load.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *(*connectdb_fn)(const char *);
typedef int (*status_fn)(const void *);
typedef char *(*conn_text_fn)(const void *);
typedef void (*finish_fn)(void *);
typedef void *(*exec_params_fn)(void *, const char *, int, const unsigned int *, const char *const *,
                                const int *, const int *, int);
typedef void *(*exec_fn)(void *, const char *);
typedef int (*result_status_fn)(const void *);
typedef char *(*result_field_fn)(const void *, int);
typedef int (*result_int_fn)(const void *);
typedef unsigned int (*ftype_fn)(const void *, int);
typedef int (*cell_int_fn)(const void *, int, int);
typedef char *(*cell_text_fn)(const void *, int, int);
typedef char *(*result_text_fn)(void *);
typedef void (*clear_fn)(void *);
typedef void *(*notice_fn)(void *, void (*)(void *, const char *), void *);

static struct {
    connectdb_fn connectdb;
    status_fn status;
    conn_text_fn error_message, host, port, db, user;
    finish_fn finish;
    exec_params_fn exec_params;
    exec_fn exec;
    result_status_fn result_status;
    result_field_fn result_error_field;
    result_int_fn ntuples, nfields;
    ftype_fn ftype;
    cell_int_fn getisnull, getlength;
    cell_text_fn getvalue;
    result_text_fn cmd_tuples;
    clear_fn clear;
    notice_fn set_notice_processor;
} pq;

static dossier_library pq_library = DOSSIER_LIBRARY_INIT;

static void *need(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (!f && !pq_library.error[0]) snprintf(pq_library.error, sizeof pq_library.error, "libpq lacks %s", name);
    return f;
}

static int load_pq(dossier_library *l) {
    const char *chosen = getenv("DOSSIER_LIBPQ");
    const char *name = chosen && chosen[0] ? chosen : "libpq.so.5";
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(l->error, sizeof l->error, "cannot load %s", name);
        return -1;
    }
    l->error[0] = 0;
    pq.connectdb = (connectdb_fn)need(lib, "PQconnectdb");
    pq.status = (status_fn)need(lib, "PQstatus");
    pq.error_message = (conn_text_fn)need(lib, "PQerrorMessage");
    pq.host = (conn_text_fn)need(lib, "PQhost");
    pq.port = (conn_text_fn)need(lib, "PQport");
    pq.db = (conn_text_fn)need(lib, "PQdb");
    pq.user = (conn_text_fn)need(lib, "PQuser");
    pq.finish = (finish_fn)need(lib, "PQfinish");
    pq.exec_params = (exec_params_fn)need(lib, "PQexecParams");
    pq.exec = (exec_fn)need(lib, "PQexec");
    pq.result_status = (result_status_fn)need(lib, "PQresultStatus");
    pq.result_error_field = (result_field_fn)need(lib, "PQresultErrorField");
    pq.ntuples = (result_int_fn)need(lib, "PQntuples");
    pq.nfields = (result_int_fn)need(lib, "PQnfields");
    pq.ftype = (ftype_fn)need(lib, "PQftype");
    pq.getisnull = (cell_int_fn)need(lib, "PQgetisnull");
    pq.getlength = (cell_int_fn)need(lib, "PQgetlength");
    pq.getvalue = (cell_text_fn)need(lib, "PQgetvalue");
    pq.cmd_tuples = (result_text_fn)need(lib, "PQcmdTuples");
    pq.clear = (clear_fn)need(lib, "PQclear");
    pq.set_notice_processor = (notice_fn)need(lib, "PQsetNoticeProcessor");
    return l->error[0] ? -1 : 1;
}

int dossier_pq_load(char *error, size_t error_len) {
    return dossier_library_load(&pq_library, load_pq, error, error_len);
}

// Server notices ("relation already exists, skipping") are not the user's business.
static void quiet_notice(void *arg, const char *message) { (void)arg; (void)message; }

void *dossier_pq_connect(const char *conninfo) {
    void *conn = pq.connectdb(conninfo);
    if (conn) pq.set_notice_processor(conn, quiet_notice, NULL);
    return conn;
}
int dossier_pq_status_ok(void *conn) { return conn && pq.status(conn) == 0 ? 0 : -1; }
static const char *or_empty(const char *s) { return s ? s : ""; }
const char *dossier_pq_error_message(void *conn) { return conn ? or_empty(pq.error_message(conn)) : "out of memory"; }
const char *dossier_pq_host(void *conn) { return conn ? or_empty(pq.host(conn)) : ""; }
const char *dossier_pq_port(void *conn) { return conn ? or_empty(pq.port(conn)) : ""; }
const char *dossier_pq_db(void *conn) { return conn ? or_empty(pq.db(conn)) : ""; }
const char *dossier_pq_user(void *conn) { return conn ? or_empty(pq.user(conn)) : ""; }
void dossier_pq_finish(void *conn) { if (conn) pq.finish(conn); }

void *dossier_pq_exec_params(void *conn, const char *sql, int count, const char *const *values,
                             const int *lengths, const int *binary, int binary_results) {
    unsigned int *types = NULL;
    if (count > 0) {
        types = calloc((size_t)count, sizeof *types);
        if (!types) return NULL;
        for (int i = 0; i < count; i++) types[i] = binary[i] ? 17u /* bytea */ : 0u;
    }
    void *r = pq.exec_params(conn, sql, count, types, values, lengths, binary, binary_results);
    free(types);
    return r;
}
void *dossier_pq_exec(void *conn, const char *sql) { return pq.exec(conn, sql); }
int dossier_pq_result_ok(void *result) {
    if (!result) return 0;
    int s = pq.result_status(result);
    return s == 1 || s == 2;
}
const char *dossier_pq_result_sqlstate(void *result) { return result ? or_empty(pq.result_error_field(result, 'C')) : ""; }
const char *dossier_pq_result_message(void *result) { return result ? or_empty(pq.result_error_field(result, 'M')) : ""; }
int dossier_pq_ntuples(void *result) { return pq.ntuples(result); }
int dossier_pq_nfields(void *result) { return pq.nfields(result); }
unsigned int dossier_pq_ftype(void *result, int field) { return pq.ftype(result, field); }
int dossier_pq_is_null(void *result, int row, int field) { return pq.getisnull(result, row, field); }
const char *dossier_pq_value(void *result, int row, int field) { return pq.getvalue(result, row, field); }
int dossier_pq_length(void *result, int row, int field) { return pq.getlength(result, row, field); }
const char *dossier_pq_cmd_tuples(void *result) { return result ? or_empty(pq.cmd_tuples(result)) : ""; }
void dossier_pq_clear(void *result) { if (result) pq.clear(result); }
