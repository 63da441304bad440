/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SERVER_INFO_H
#define SB_SERVER_INFO_H

/*
 * The server as part of a result: its settings and, when it runs on this
 * machine, its binary. Recorded once per point before the run starts
 * (through the probe connection, sb_probe.c), written to the result file
 * as "environment.server" (doc/results.md), and listed by compare when
 * they differ between files (sb_verdict.c), next to the options.
 *
 * Settings come from the driver's settings_query (MariaDB/MySQL
 * SHOW GLOBAL VARIABLES, PostgreSQL pg_settings); an embedded engine
 * (SQLite) has none recorded. Settings that differ from one moment or
 * one server start to the next without any change of configuration, and
 * those that could hold a secret, are not recorded, by the rule of
 * sb_server_setting_skipped.
 *
 * The binary is the executable of the server's first process
 * (/proc/PID/exe): its path and its GNU build id (the ELF note
 * .note.gnu.build-id, which the linker derives from the code, so two
 * builds of other code differ), or, when it has none, the SHA-256 of the
 * file.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct sb_conn;
struct sb_json;

struct sb_server_setting {
    char *name, *value;               /* owned */
};

struct sb_server_info {
    struct sb_server_setting *settings; /* owned, sorted by name */
    size_t nsettings, cap;
    bool have_settings;               /* the query ran */
    size_t nskipped;                  /* settings left out by the rule */
    char binary_path[512];            /* "" when unknown */
    char build_id[129];               /* hex, "" when the binary has none */
    char sha256[65];                  /* hex, "" unless no build id */
};

/*
 * Whether setting name is left out of the record: it changes without a
 * change of configuration (a process id file, a server's identity, a
 * replication position, a clock) or may hold a secret. Pure.
 */
bool sb_server_setting_skipped(const char *name);

/*
 * Reads the server's settings on con with sql (rows of name and value),
 * into si (zeroed by the caller, or fresh). Returns 0, or -1 with one
 * line in err (the query failed or memory ran out; si then has no
 * settings).
 */
int sb_server_info_read_settings(struct sb_server_info *si, struct sb_conn *con,
                                 const char *sql, char *err, size_t errlen);

/* Adds one setting (copied) unless the rule skips it. Returns 0, or -1
 * when out of memory. Settings must be added in any order; sorted by
 * sb_server_info_sort. */
int sb_server_info_add(struct sb_server_info *si, const char *name, const char *value);

/* Sorts the settings by name. */
void sb_server_info_sort(struct sb_server_info *si);

/*
 * Records the executable of process pid: its path and build id (or
 * SHA-256). Leaves the fields empty when /proc/PID/exe cannot be read.
 */
void sb_server_info_binary(struct sb_server_info *si, pid_t pid);

/*
 * Reads the GNU build id of the ELF file open as fp into hex (capacity
 * len, at least 129). Returns true when found.
 */
bool sb_server_info_build_id(FILE *fp, char *hex, size_t len);

/* Writes the SHA-256 of the file open as fp in hex into out (65 bytes).
 * Returns true unless a read failed. */
bool sb_server_info_sha256(FILE *fp, char out[65]);

/*
 * The first difference between two records, for a warning: writes "name
 * (a -> b)" of the first setting that differs, is missing on one side, or
 * "binary" when the build id or SHA-256 differ, into buf. Returns false
 * (buf "") when both have the same settings and binary, or either has
 * none of them.
 */
bool sb_server_info_first_diff(const struct sb_server_info *a,
                               const struct sb_server_info *b, char *buf, size_t len);

/* Whether si holds anything worth writing. */
bool sb_server_info_known(const struct sb_server_info *si);

/*
 * Writes si as a JSON object value ("settings" {name: value} or null,
 * "settings_skipped", "binary" {path, build_id, sha256} or null).
 */
void sb_server_info_json(struct sb_json *j, const struct sb_server_info *si);

/* Moves what src owns into dst (freed first); src is left empty. */
void sb_server_info_move(struct sb_server_info *dst, struct sb_server_info *src);

/* Frees what si owns; si is left empty and reusable. */
void sb_server_info_free(struct sb_server_info *si);

#endif /* SB_SERVER_INFO_H */
