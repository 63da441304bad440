/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_secret_file: secrets read from files (what is kept,
 * what is refused, that a message never quotes the content) and
 * passwords overwritten in argv.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_secret_file.h"

static char path[64];

/* Writes len bytes of data to a fresh temporary file named in path. */
static void write_file(const char *data, size_t len)
{
    int fd;

    snprintf(path, sizeof(path), "/tmp/sb_pwfile.XXXXXX");
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
}

/* The secret read from data, or NULL with err filled. */
static char *read_from(const char *data, size_t len, bool trim, char *err, size_t errlen)
{
    char *s;

    write_file(data, len);
    s = sb_secret_file_read(path, "pw-file", trim, err, errlen);
    unlink(path);
    return s;
}

START_TEST(test_final_line_end_only)
{
    char err[256];
    char *s;

    s = read_from("p@ss word \n", 11, false, err, sizeof(err));
    ck_assert_str_eq(s, "p@ss word ");
    sb_secret_free(s);
    s = read_from("crlf\r\n", 6, false, err, sizeof(err));
    ck_assert_str_eq(s, "crlf");
    sb_secret_free(s);
    s = read_from("no-newline", 10, false, err, sizeof(err));
    ck_assert_str_eq(s, "no-newline");
    sb_secret_free(s);
    /* A password may start or end with spaces: only the line end goes. */
    s = read_from("  x  ", 5, false, err, sizeof(err));
    ck_assert_str_eq(s, "  x  ");
    sb_secret_free(s);
}
END_TEST

START_TEST(test_trim_as_prometheus)
{
    char err[256];
    char *s = read_from("\n  tok-1 \t\r\n\n", 13, true, err, sizeof(err));

    ck_assert_str_eq(s, "tok-1");
    sb_secret_free(s);
}
END_TEST

START_TEST(test_refused_without_quoting)
{
    char err[256];
    char big[SB_SECRET_MAX + 2];

    ck_assert_ptr_null(read_from("", 0, false, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "--pw-file="));
    ck_assert_ptr_nonnull(strstr(err, ": is empty"));
    ck_assert_ptr_null(read_from("\n", 1, false, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, ": is empty"));
    ck_assert_ptr_null(read_from(" \n \n", 4, true, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, ": is empty"));
    ck_assert_ptr_null(read_from("alpha-1\nalpha-2\n", 16, false, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "holds more than one line"));
    ck_assert_ptr_null(strstr(err, "alpha"));
    ck_assert_ptr_null(read_from("a\rb", 3, false, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "holds more than one line"));
    ck_assert_ptr_null(read_from("ab\0cd", 5, false, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "holds a NUL byte"));
    /* The limit, with and without a final newline. */
    memset(big, 'k', sizeof(big));
    big[SB_SECRET_MAX] = '\n';
    {
        char *s = read_from(big, SB_SECRET_MAX + 1, false, err, sizeof(err));
        ck_assert_ptr_nonnull(s);
        ck_assert_uint_eq(strlen(s), SB_SECRET_MAX);
        sb_secret_free(s);
    }
    big[SB_SECRET_MAX] = 'k';
    ck_assert_ptr_null(read_from(big, SB_SECRET_MAX + 1, false, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "is longer than 4096 bytes"));
    ck_assert_ptr_null(read_from(big, sizeof(big), false, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "is longer than 4096 bytes"));
    ck_assert_ptr_null(strstr(err, "kkkk"));
}
END_TEST

START_TEST(test_unreadable)
{
    char err[256];

    ck_assert_ptr_null(sb_secret_file_read("/nonexistent/pw", "x-file", false, err, sizeof(err)));
    ck_assert_str_eq(err, "--x-file=/nonexistent/pw: cannot open: No such file or directory");
    ck_assert_ptr_null(sb_secret_file_read("/tmp", "x-file", false, err, sizeof(err)));
    ck_assert_str_eq(err, "--x-file=/tmp: is a directory, not a file");
}
END_TEST

START_TEST(test_pipe)
{
    char err[256], name[64];
    int fds[2];
    char *s;

    ck_assert_int_eq(pipe(fds), 0);
    ck_assert_int_eq(write(fds[1], "piped\n", 6), 6);
    close(fds[1]);
    snprintf(name, sizeof(name), "/dev/fd/%d", fds[0]);
    s = sb_secret_file_read(name, "p", false, err, sizeof(err));
    ck_assert_str_eq(s, "piped");
    sb_secret_free(s);
    close(fds[0]);
}
END_TEST

static bool is_password(const char *name, size_t len, void *ctx)
{
    (void)ctx;
    return (len == 14 && strncmp(name, "mysql-password", len) == 0) ||
           (len == 14 && strncmp(name, "pgsql-password", len) == 0);
}

START_TEST(test_scrub_argv)
{
    char a0[] = "sysbench", a1[] = "--mysql-password=Sec-1", a2[] = "--mysql-password-file=f",
         a3[] = "--pgsql-password=", a4[] = "oltp", a5[] = "--pgsql-password=Sec-2",
         a6[] = "--", a7[] = "--mysql-password=after-dashes";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, NULL};

    ck_assert_uint_eq(sb_secret_scrub_argv(8, argv, is_password, NULL), 3);
    ck_assert_str_eq(argv[1], "--mysql-password=xxxxx");
    ck_assert_str_eq(argv[2], "--mysql-password-file=f");
    ck_assert_str_eq(argv[3], "--pgsql-password=");
    ck_assert_str_eq(argv[4], "oltp");
    ck_assert_str_eq(argv[5], "--pgsql-password=xxxxx");
    /* After "--" the words are the script's, not options. */
    ck_assert_str_eq(argv[7], "--mysql-password=after-dashes");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_secret_file");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_final_line_end_only);
    tcase_add_test(tc, test_trim_as_prometheus);
    tcase_add_test(tc, test_refused_without_quoting);
    tcase_add_test(tc, test_unreadable);
    tcase_add_test(tc, test_pipe);
    tcase_add_test(tc, test_scrub_argv);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
