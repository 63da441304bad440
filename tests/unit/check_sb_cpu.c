/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_cpu: the pure parsers on fixed /proc text, the figures
 * on made-up samples, and live checks against this process, a forked child
 * and sockets the test itself listens on.
 */
#include <check.h>
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu/sb_cpu.h"

#define MSG 512
#define MS 1000000ULL

static uint64_t process_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Spins until this process has used ms more milliseconds of CPU. The
 * volatile sink keeps the compiler from removing the loop. */
static void burn_cpu_ms(unsigned ms)
{
    volatile uint64_t sink = 0;
    uint64_t until = process_cpu_ns() + ms * MS;

    while (process_cpu_ns() < until) {
        int i;

        for (i = 0; i < 10000; i++)
            sink += (uint64_t)i * 2654435761u;
    }
    (void)sink;
}

static uint64_t total_ns(const struct sb_cpu_times *t)
{
    return t->user_ns + t->system_ns;
}

static double ms_between(const struct sb_cpu_times *a,
                         const struct sb_cpu_times *b)
{
    return ((double)total_ns(b) - (double)total_ns(a)) / 1e6;
}

/* ---------------------------------------------------- /proc/<pid>/stat */

START_TEST(test_parse_proc_stat)
{
    static const char line[] =
        "1234 (mysqld) S 1 1234 1234 0 -1 4194560 52344 0 12 0 "
        "8123 2345 77 11 20 0 38 0 5678901 2400000000 120000 "
        "18446744073709551615 1 1 0 0 0 0 0 4096 1260 0 0 0 17 1 0 0 0 0 0\n";
    struct sb_cpu_proc_stat ps;

    ck_assert_int_eq(sb_cpu_parse_proc_stat(line, &ps), 0);
    ck_assert_int_eq(ps.pid, 1234);
    ck_assert_str_eq(ps.comm, "mysqld");
    ck_assert_int_eq(ps.state, 'S');
    ck_assert_int_eq(ps.ppid, 1);
    ck_assert_uint_eq(ps.utime, 8123);
    ck_assert_uint_eq(ps.stime, 2345);
    ck_assert_uint_eq(ps.cutime, 77);
    ck_assert_uint_eq(ps.cstime, 11);
    ck_assert_int_eq(ps.num_threads, 38);
    ck_assert_uint_eq(ps.starttime, 5678901);
}
END_TEST

/* A comm with spaces and parentheses must not shift the fields. */
START_TEST(test_parse_proc_stat_weird_comm)
{
    static const char line[] =
        "42 (my (weird) proc) R 7 42 42 0 -1 4194304 100 0 0 0 "
        "500 60 3 4 20 0 1 0 999 1000 10 18446744073709551615\n";
    static const char spaces[] =
        "77 (postgres: bob db 127.0.0.1(5432) idle) S 42 77 77 0 -1 "
        "4194560 1 0 0 0 9 8 0 0 20 0 1 0 1234 1 1\n";
    static const char close_only[] =
        "8 (a) b) c) Z 2 0 0 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 5\n";
    struct sb_cpu_proc_stat ps;

    ck_assert_int_eq(sb_cpu_parse_proc_stat(line, &ps), 0);
    ck_assert_int_eq(ps.pid, 42);
    ck_assert_str_eq(ps.comm, "my (weird) proc");
    ck_assert_int_eq(ps.state, 'R');
    ck_assert_int_eq(ps.ppid, 7);
    ck_assert_uint_eq(ps.utime, 500);
    ck_assert_uint_eq(ps.stime, 60);
    ck_assert_uint_eq(ps.cutime, 3);
    ck_assert_uint_eq(ps.cstime, 4);

    ck_assert_int_eq(sb_cpu_parse_proc_stat(spaces, &ps), 0);
    ck_assert_str_eq(ps.comm, "postgres: bob db 127.0.0.1(5432) idle");
    ck_assert_int_eq(ps.ppid, 42);
    ck_assert_uint_eq(ps.utime, 9);
    ck_assert_uint_eq(ps.stime, 8);

    ck_assert_int_eq(sb_cpu_parse_proc_stat(close_only, &ps), 0);
    ck_assert_str_eq(ps.comm, "a) b) c");
    ck_assert_int_eq(ps.state, 'Z');
    ck_assert_uint_eq(ps.utime, 1);
    ck_assert_uint_eq(ps.cstime, 4);
}
END_TEST

START_TEST(test_parse_proc_stat_bad)
{
    struct sb_cpu_proc_stat ps;

    ck_assert_int_eq(sb_cpu_parse_proc_stat("", &ps), -1);
    ck_assert_int_eq(sb_cpu_parse_proc_stat("12 mysqld S 1 2 3", &ps), -1);
    ck_assert_int_eq(sb_cpu_parse_proc_stat("x (a) S 1 2 3 4 5 6 7 8 9 "
                                            "10 11 12 13 14", &ps), -1);
    /* Truncated before cstime. */
    ck_assert_int_eq(sb_cpu_parse_proc_stat("12 (a) S 1 2 3 4 5 6 7 8 9 "
                                            "10 11 12", &ps), -1);
    ck_assert_int_eq(sb_cpu_parse_proc_stat("12 (a)", &ps), -1);
}
END_TEST

/* ---------------------------------------------------------- /proc/stat */

START_TEST(test_parse_stat_cpu)
{
    static const char text[] =
        "cpu  10132153 290696 3084719 46828483 16683 0 25195 175 12 3\n"
        "cpu0 1393280 32966 572056 13343292 6130 0 17875 0 0 0\n"
        "cpu1 1335474 32906 383896 13549220 2874 0 4254 0 0 0\n"
        "cpu2 3694311 142168 1196924 9981226 3924 0 1626 175 12 3\n"
        "cpu3 3709088 82656 931843 9954745 3755 0 1440 0 0 0\n"
        "intr 1462898 21 9 0 0 0 0 0 0 1 0 0 0 cpu 0\n"
        "ctxt 2354354\nbtime 1700000000\nprocesses 10523\n"
        "procs_running 2\nprocs_blocked 0\n"
        "softirq 1170412 0 277396 11 2185 0 0 2 403838 0 486980\n";
    struct sb_cpu_machine_stat m;
    unsigned n = 0;

    ck_assert_int_eq(sb_cpu_parse_proc_stat_text(text, &m, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(m.user, 10132153);
    ck_assert_uint_eq(m.nice, 290696);
    ck_assert_uint_eq(m.system, 3084719);
    ck_assert_uint_eq(m.idle, 46828483);
    ck_assert_uint_eq(m.iowait, 16683);
    ck_assert_uint_eq(m.irq, 0);
    ck_assert_uint_eq(m.softirq, 25195);
    ck_assert_uint_eq(m.steal, 175);
    ck_assert_uint_eq(m.guest, 12);
    ck_assert_uint_eq(m.guest_nice, 3);

    /* One line, and an old kernel's four fields. */
    ck_assert_int_eq(sb_cpu_parse_stat_cpu_line(
                         "cpu7 1 2 3 4 5 6 7 8 9 10", &m), 0);
    ck_assert_uint_eq(m.guest_nice, 10);
    ck_assert_int_eq(sb_cpu_parse_stat_cpu_line("cpu 100 5 50 900\n", &m), 0);
    ck_assert_uint_eq(m.idle, 900);
    ck_assert_uint_eq(m.steal, 0);

    ck_assert_int_eq(sb_cpu_parse_stat_cpu_line("cpu 1 2 3", &m), -1);
    ck_assert_int_eq(sb_cpu_parse_stat_cpu_line("intr 1 2 3 4 5", &m), -1);
    ck_assert_int_eq(sb_cpu_parse_stat_cpu_line("cpux 1 2 3 4", &m), -1);
    ck_assert_int_eq(sb_cpu_parse_proc_stat_text("ctxt 5\n", &m, &n), -1);
    ck_assert_int_eq(sb_cpu_parse_proc_stat_text(
                         "cpu 1 2 3 4\nctxt 5\n", &m, &n), -1);
}
END_TEST

/* ----------------------------------------------------- /proc/net/unix */

START_TEST(test_parse_net_unix)
{
    struct sb_cpu_unix_entry e;

    ck_assert_int_eq(sb_cpu_parse_net_unix_line(
        "Num       RefCount Protocol Flags    Type St Inode Path\n", &e), -1);

    ck_assert_int_eq(sb_cpu_parse_net_unix_line(
        "0000000000000000: 00000002 00000000 00010000 0001 01 48213 "
        "/run/mysqld/mysqld.sock\n", &e), 0);
    ck_assert(e.listening);
    ck_assert_uint_eq(e.type, 1);
    ck_assert_uint_eq(e.state, 1);
    ck_assert_uint_eq(e.inode, 48213);
    ck_assert_str_eq(e.path, "/run/mysqld/mysqld.sock");

    /* A connected socket without a path. */
    ck_assert_int_eq(sb_cpu_parse_net_unix_line(
        "ffff8f2a7c1e4400: 00000003 00000000 00000000 0001 03 51234\n",
        &e), 0);
    ck_assert(!e.listening);
    ck_assert_uint_eq(e.state, 3);
    ck_assert_uint_eq(e.inode, 51234);
    ck_assert_str_eq(e.path, "");

    /* Abstract names and paths with spaces are kept whole. */
    ck_assert_int_eq(sb_cpu_parse_net_unix_line(
        "0000000000000000: 00000002 00000000 00010000 0001 01 777 "
        "@/tmp/.X11-unix/X0\n", &e), 0);
    ck_assert_str_eq(e.path, "@/tmp/.X11-unix/X0");
    ck_assert_int_eq(sb_cpu_parse_net_unix_line(
        "0000000000000000: 00000002 00000000 00010000 0001 01 778 "
        "/tmp/my dir/.s.PGSQL.5432\n", &e), 0);
    ck_assert_str_eq(e.path, "/tmp/my dir/.s.PGSQL.5432");
    ck_assert_uint_eq(e.inode, 778);

    ck_assert_int_eq(sb_cpu_parse_net_unix_line("garbage\n", &e), -1);
    ck_assert_int_eq(sb_cpu_parse_net_unix_line(
        "0000000000000000: 00000002 00000000\n", &e), -1);
}
END_TEST

/* ------------------------------------------------------ /proc/net/tcp */

/* The kernel prints each 32-bit word of an address as a host-order
 * integer; build the text the same way so the test holds on any byte
 * order. */
static void addr_hex(const void *addr, size_t len, char *out)
{
    size_t i;

    for (i = 0; i < len / 4; i++) {
        uint32_t w;

        memcpy(&w, (const uint8_t *)addr + i * 4, 4);
        sprintf(out + i * 8, "%08X", w);
    }
}

START_TEST(test_parse_net_tcp)
{
    struct sb_cpu_tcp_entry e;
    struct in_addr lo4, any4;
    struct in6_addr lo6;
    char lo4h[9], any4h[9], lo6h[33], line[512];

    inet_pton(AF_INET, "127.0.0.1", &lo4);
    inet_pton(AF_INET, "0.0.0.0", &any4);
    inet_pton(AF_INET6, "::1", &lo6);
    addr_hex(&lo4, 4, lo4h);
    addr_hex(&any4, 4, any4h);
    addr_hex(&lo6, 16, lo6h);

    ck_assert_int_eq(sb_cpu_parse_net_tcp_line(
        "  sl  local_address rem_address   st tx_queue rx_queue tr "
        "tm->when retrnsmt   uid  timeout inode\n", &e), -1);

    snprintf(line, sizeof(line),
             "   0: %s:0CEA %s:0000 0A 00000000:00000000 00:00000000 "
             "00000000   999        0 23456 1 0000000000000000 100 0 0 10 0\n",
             lo4h, any4h);
    ck_assert_int_eq(sb_cpu_parse_net_tcp_line(line, &e), 0);
    ck_assert_int_eq(e.family, AF_INET);
    ck_assert_int_eq(memcmp(e.local_addr, &lo4, 4), 0);
    ck_assert_uint_eq(e.local_port, 3306);
    ck_assert_uint_eq(e.state, SB_CPU_TCP_LISTEN);
    ck_assert_uint_eq(e.uid, 999);
    ck_assert_uint_eq(e.inode, 23456);

    /* An established connection: remote side filled in. */
    snprintf(line, sizeof(line),
             "  12: %s:C350 %s:1538 01 00000000:00000000 02:000A7D4A "
             "00000000  1000        0 98765 2 0000000000000000 20 4 30 10 -1\n",
             lo4h, lo4h);
    ck_assert_int_eq(sb_cpu_parse_net_tcp_line(line, &e), 0);
    ck_assert_uint_eq(e.local_port, 50000);
    ck_assert_uint_eq(e.remote_port, 5432);
    ck_assert_uint_eq(e.state, 1);
    ck_assert_uint_eq(e.inode, 98765);

    /* tcp6: the wildcard and ::1. */
    ck_assert_int_eq(sb_cpu_parse_net_tcp_line(
        "   1: 00000000000000000000000000000000:1538 "
        "00000000000000000000000000000000:0000 0A 00000000:00000000 "
        "00:00000000 00000000   114        0 34567 1 0000000000000000 "
        "100 0 0 10 0\n", &e), 0);
    ck_assert_int_eq(e.family, AF_INET6);
    ck_assert_uint_eq(e.local_port, 5432);
    ck_assert_uint_eq(e.uid, 114);
    ck_assert_uint_eq(e.inode, 34567);
    snprintf(line, sizeof(line),
             "   2: %s:0CEA 00000000000000000000000000000000:0000 0A "
             "00000000:00000000 00:00000000 00000000     0        0 4444 1 "
             "0000000000000000 100 0 0 10 0\n", lo6h);
    ck_assert_int_eq(sb_cpu_parse_net_tcp_line(line, &e), 0);
    ck_assert_int_eq(memcmp(e.local_addr, &lo6, 16), 0);
    ck_assert_uint_eq(e.inode, 4444);

    ck_assert_int_eq(sb_cpu_parse_net_tcp_line("   0: 0100007F\n", &e), -1);
    ck_assert_int_eq(sb_cpu_parse_net_tcp_line(
        "   0: 0100007F:0CEA 00000000000000000000000000000000:0000 0A "
        "00000000:00000000 00:00000000 00000000 0 0 1\n", &e), -1);
}
END_TEST

/* --------------------------------------------------------- the figures */

START_TEST(test_figures)
{
    struct sb_cpu_sample a, b;
    struct sb_cpu_report r;

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    a.clk_tck = b.clk_tck = 100;
    a.ncpus = b.ncpus = 4;
    a.mono_ns = 10 * 1000 * MS;
    b.mono_ns = a.mono_ns + 2000 * MS;            /* 2 s */
    a.client.user_ns = 1000 * MS;
    b.client.user_ns = a.client.user_ns + 600 * MS;
    a.client.system_ns = 50 * MS;
    b.client.system_ns = a.client.system_ns + 200 * MS;
    a.server_nprocs = b.server_nprocs = 3;
    a.server.user_ns = 5000 * MS;
    b.server.user_ns = 4000 * MS;                 /* a child was lost */
    a.server.system_ns = 0;
    b.server.system_ns = 400 * MS;
    a.machine_ok = b.machine_ok = true;
    /* 2 s x 4 CPUs = 800 ticks: 300 user+nice, 100 system+irq+softirq,
     * 40 steal, 60 iowait, 300 idle. */
    a.machine = (struct sb_cpu_machine_stat){1000, 10, 500, 9000, 70, 5, 5,
                                             1, 0, 0};
    b.machine = (struct sb_cpu_machine_stat){1250, 60, 580, 9300, 130, 15,
                                             15, 41, 7, 0};

    sb_cpu_compute(&a, &b, 1000, &r);
    ck_assert_double_eq_tol(r.elapsed_s, 2.0, 1e-9);
    ck_assert_uint_eq(r.ncpus, 4);
    ck_assert(r.client.measured);
    ck_assert_double_eq_tol(r.client.cpu_s, 0.8, 1e-9);
    ck_assert_double_eq_tol(r.client.user_us_per_tx, 600.0, 1e-6);
    ck_assert_double_eq_tol(r.client.system_us_per_tx, 200.0, 1e-6);
    ck_assert_double_eq_tol(r.client.total_us_per_tx, 800.0, 1e-6);
    ck_assert_double_eq_tol(r.client.util_pct, 10.0, 1e-9);

    /* The server's user counter went down: counted as zero. */
    ck_assert(r.server.measured);
    ck_assert_double_eq_tol(r.server.user_us_per_tx, 0.0, 1e-9);
    ck_assert_double_eq_tol(r.server.system_us_per_tx, 400.0, 1e-6);
    ck_assert_double_eq_tol(r.server.util_pct, 5.0, 1e-9);

    ck_assert(r.machine.measured);
    ck_assert_double_eq_tol(r.machine.user_us_per_tx, 3000.0, 1e-6);
    ck_assert_double_eq_tol(r.machine.system_us_per_tx, 1000.0, 1e-6);
    ck_assert_double_eq_tol(r.machine.busy_us_per_tx, 4400.0, 1e-6);
    ck_assert_double_eq_tol(r.machine.util_pct, 55.0, 1e-9);
    ck_assert_double_eq_tol(r.machine.user_pct, 37.5, 1e-9);
    ck_assert_double_eq_tol(r.machine.system_pct, 12.5, 1e-9);
    ck_assert_double_eq_tol(r.machine.steal_pct, 5.0, 1e-9);
    ck_assert_double_eq_tol(r.machine.iowait_pct, 7.5, 1e-9);
    ck_assert_double_eq_tol(r.machine.idle_pct, 37.5, 1e-9);

    /* No transactions: per-transaction figures are NAN, shares stay. */
    sb_cpu_compute(&a, &b, 0, &r);
    ck_assert(isnan(r.client.total_us_per_tx));
    ck_assert(isnan(r.machine.busy_us_per_tx));
    ck_assert_double_eq_tol(r.client.util_pct, 10.0, 1e-9);

    /* More CPU than the machine has (clock skew, a short interval):
     * clamped to 100. */
    b.client.user_ns = a.client.user_ns + 20000 * MS;
    sb_cpu_compute(&a, &b, 1, &r);
    ck_assert_double_eq(r.client.util_pct, 100.0);

    /* Server missing in one sample, machine in the other. */
    b.server_nprocs = 0;
    a.machine_ok = false;
    sb_cpu_compute(&a, &b, 10, &r);
    ck_assert(!r.server.measured);
    ck_assert(isnan(r.server.total_us_per_tx));
    ck_assert(!r.machine.measured);
}
END_TEST

/* ------------------------------------------------------- --server-pid */

START_TEST(test_pid_list)
{
    pid_t pids[4];
    char err[MSG], buf[64];
    int me = (int)getpid(), parent = (int)getppid();

    snprintf(buf, sizeof(buf), "%d", me);
    ck_assert_int_eq(sb_cpu_parse_pid_list(buf, pids, 4, err, sizeof(err)), 1);
    ck_assert_int_eq(pids[0], me);

    snprintf(buf, sizeof(buf), "%d, %d,%d", me, parent, me);
    ck_assert_int_eq(sb_cpu_parse_pid_list(buf, pids, 4, err, sizeof(err)), 2);
    ck_assert_int_eq(pids[0], me);
    ck_assert_int_eq(pids[1], parent);

    ck_assert_int_eq(sb_cpu_parse_pid_list(buf, pids, 1, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "more than"));

    ck_assert_int_eq(sb_cpu_parse_pid_list("", pids, 4, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_cpu_parse_pid_list("abc", pids, 4, err, sizeof(err)),
                     -1);
    ck_assert_int_eq(sb_cpu_parse_pid_list("0", pids, 4, err, sizeof(err)),
                     -1);
    ck_assert_int_eq(sb_cpu_parse_pid_list("-5", pids, 4, err, sizeof(err)),
                     -1);
    ck_assert_int_eq(sb_cpu_parse_pid_list("1,,1", pids, 4, err, sizeof(err)),
                     -1);
    ck_assert_int_eq(sb_cpu_parse_pid_list("1x", pids, 4, err, sizeof(err)),
                     -1);
    /* Above any pid_max, so no such process. */
    ck_assert_int_eq(sb_cpu_parse_pid_list("2147483647", pids, 4, err,
                                           sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "no process"));
}
END_TEST

/* ------------------------------------------------------ live: client */

START_TEST(test_live_client)
{
    struct sb_cpu_times a, b, ta, tb, pa, pb;
    struct rusage ru;
    double grew, diff;
    uint64_t ru_ns;

    ck_assert_int_eq(sb_cpu_sample_self(&a), 0);
    ck_assert_int_eq(sb_cpu_sample_this_thread(&ta), 0);
    ck_assert_int_eq(sb_cpu_sample_process(getpid(), false, &pa), 0);
    burn_cpu_ms(200);
    ck_assert_int_eq(sb_cpu_sample_self(&b), 0);
    ck_assert_int_eq(getrusage(RUSAGE_SELF, &ru), 0);
    ck_assert_int_eq(sb_cpu_sample_this_thread(&tb), 0);
    ck_assert_int_eq(sb_cpu_sample_process(getpid(), false, &pb), 0);

    grew = ms_between(&a, &b);
    ck_assert_msg(grew >= 195 && grew <= 300, "client grew %.1f ms", grew);

    /* getrusage read just after the sample agrees within a few ms. */
    ru_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL
            + (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
    diff = ((double)ru_ns - (double)total_ns(&b)) / 1e6;
    ck_assert_msg(diff >= 0 && diff < 5, "getrusage differs by %.2f ms", diff);

    /* RUSAGE_THREAD is as precise as the process figure. */
    grew = ms_between(&ta, &tb);
    ck_assert_msg(grew >= 195 && grew <= 300, "thread grew %.1f ms", grew);
    /* /proc counts in ticks (10 ms at 100 Hz): looser bounds. */
    grew = ms_between(&pa, &pb);
    ck_assert_msg(grew >= 160 && grew <= 320, "process grew %.1f ms", grew);

}
END_TEST

START_TEST(test_live_machine)
{
    struct sb_cpu_sample a, b;
    struct sb_cpu_report r;
    double sum;

    ck_assert_int_eq(sb_cpu_sample(&a, NULL), 0);
    burn_cpu_ms(150);
    ck_assert_int_eq(sb_cpu_sample(&b, NULL), 0);
    ck_assert(a.machine_ok && b.machine_ok);
    ck_assert_uint_ge(b.ncpus, 1);
    ck_assert_int_gt(b.clk_tck, 0);
    ck_assert_uint_eq(b.server_nprocs, 0);

    sb_cpu_compute(&a, &b, 100, &r);
    ck_assert(r.machine.measured);
    ck_assert(!r.server.measured);
    ck_assert(r.machine.util_pct >= 0 && r.machine.util_pct <= 100);
    ck_assert(r.client.util_pct >= 0 && r.client.util_pct <= 100);
    /* We just kept one CPU busy, so the machine cannot have been idle. */
    ck_assert_msg(r.machine.util_pct > 0, "machine util %.2f",
                  r.machine.util_pct);
    sum = r.machine.user_pct + r.machine.system_pct + r.machine.iowait_pct +
          r.machine.steal_pct + r.machine.idle_pct;
    ck_assert_double_eq_tol(sum, 100.0, 1e-6);
    ck_assert_msg(r.client.total_us_per_tx >= 1400 &&
                  r.client.total_us_per_tx <= 2500,
                  "client %.1f us/tx", r.client.total_us_per_tx);
}
END_TEST

/* ------------------------------------------------ live: a forked server */

/* A child that waits for a byte, spins for spin_ms of CPU, answers with a
 * byte, then sleeps until killed. */
static pid_t spawn_spinner(unsigned spin_ms, int *to_child, int *from_child)
{
    int down[2], up[2];
    pid_t pid;

    ck_assert_int_eq(pipe(down), 0);
    ck_assert_int_eq(pipe(up), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char c;

        close(down[1]);
        close(up[0]);
        if (read(down[0], &c, 1) != 1)
            _exit(1);
        burn_cpu_ms(spin_ms);
        if (write(up[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(down[0]);
    close(up[1]);
    *to_child = down[1];
    *from_child = up[0];
    return pid;
}

static void run_spinner(int to_child, int from_child)
{
    char c;

    ck_assert_int_eq(write(to_child, "g", 1), 1);
    ck_assert_int_eq(read(from_child, &c, 1), 1);
}

static void stop_child(pid_t pid)
{
    int status;

    kill(pid, SIGKILL);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}

START_TEST(test_live_server_pid)
{
    struct sb_cpu_server srv;
    struct sb_cpu_times a, b;
    char buf[32], err[MSG];
    int to, from, n;
    pid_t child = spawn_spinner(300, &to, &from);
    double grew;

    snprintf(buf, sizeof(buf), "%d", (int)child);
    memset(&srv, 0, sizeof(srv));
    n = sb_cpu_parse_pid_list(buf, srv.pids, SB_CPU_MAX_SERVER_PIDS, err,
                              sizeof(err));
    ck_assert_msg(n == 1, "%s", err);
    srv.npids = (size_t)n;

    ck_assert_uint_eq(sb_cpu_sample_server(&srv, &a), 1);
    run_spinner(to, from);
    ck_assert_uint_eq(sb_cpu_sample_server(&srv, &b), 1);
    grew = ms_between(&a, &b);
    ck_assert_msg(grew >= 260 && grew <= 360, "child grew %.1f ms", grew);

    stop_child(child);
    /* Gone: not measured. */
    ck_assert_uint_eq(sb_cpu_sample_server(&srv, &b), 0);
    ck_assert_uint_eq(total_ns(&b), 0);
}
END_TEST

/* PostgreSQL's case: the "postmaster" (this process) with a child. The
 * child's CPU counts while it lives and, once reaped, through cutime. */
START_TEST(test_live_server_children)
{
    struct sb_cpu_server srv;
    struct sb_cpu_times a, b, c;
    int to, from;
    pid_t child = spawn_spinner(300, &to, &from);
    size_t n;
    double grew;

    memset(&srv, 0, sizeof(srv));
    srv.pids[0] = getpid();
    srv.npids = 1;
    srv.include_children = true;

    n = sb_cpu_sample_server(&srv, &a);
    ck_assert_uint_eq(n, 2);
    run_spinner(to, from);
    n = sb_cpu_sample_server(&srv, &b);
    ck_assert_uint_eq(n, 2);
    grew = ms_between(&a, &b);
    /* Sampling /proc costs this process a little CPU too. */
    ck_assert_msg(grew >= 260 && grew <= 420, "tree grew %.1f ms", grew);

    stop_child(child);
    n = sb_cpu_sample_server(&srv, &c);
    ck_assert_uint_eq(n, 1);
    grew = ms_between(&b, &c);
    ck_assert_msg(grew >= -10, "reaped child lost: %.1f ms", grew);

    /* Without children only this process counts. */
    srv.include_children = false;
    ck_assert_uint_eq(sb_cpu_sample_server(&srv, &c), 1);
}
END_TEST

/* The final sample waits for the processes that appeared during the run
 * to be gone and reaped, and gives up on one that does not go. */
START_TEST(test_live_server_settle)
{
    struct sb_cpu_server srv;
    pid_t *known, *now, child;
    size_t nknown, n;
    int hold[2];

    memset(&srv, 0, sizeof(srv));
    srv.pids[0] = getpid();
    srv.npids = 1;
    srv.include_children = true;
    nknown = sb_cpu_server_tree_pids(&srv, &known);
    ck_assert_uint_eq(nknown, 1);
    ck_assert_int_eq(known[0], getpid());

    /* Children are reaped by the kernel as soon as they exit. The child
     * waits for the pipe to close rather than for a timer, so a loaded
     * machine cannot let it exit before it has been counted. */
    signal(SIGCHLD, SIG_IGN);
    ck_assert_int_eq(pipe(hold), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        char c;
        close(hold[1]);
        while (read(hold[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    close(hold[0]);
    n = sb_cpu_server_tree_pids(&srv, &now);
    ck_assert_uint_eq(n, 2);
    free(now);
    close(hold[1]);
    ck_assert_uint_eq(sb_cpu_server_settle(&srv, known, nknown, 5.0), 0);
    ck_assert_int_eq(kill(child, 0), -1);
    ck_assert_int_eq(errno, ESRCH);

    /* A process that stays (another client's backend) is given up on. */
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        sleep(30);
        _exit(0);
    }
    ck_assert_uint_eq(sb_cpu_server_settle(&srv, known, nknown, 5.0), 1);
    ck_assert_int_eq(kill(child, 0), 0);
    kill(child, SIGKILL);
    free(known);

    /* Nothing to wait for without the children. */
    srv.include_children = false;
    ck_assert_uint_eq(sb_cpu_server_tree_pids(&srv, &known), 0);
    ck_assert_ptr_null(known);
    ck_assert_uint_eq(sb_cpu_server_settle(&srv, NULL, 0, 5.0), 0);
}
END_TEST

/* --------------------------------------------------- live: discovery */

START_TEST(test_find_unix)
{
    char dir[] = "/tmp/sb_cpu_XXXXXX";
    char endpoint[256], why[MSG];
    struct sockaddr_un sa;
    pid_t pids[8], helper;
    int fd, n, status;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/mysqld.sock", dir);
    snprintf(endpoint, sizeof(endpoint), "unix:%s", sa.sun_path);

    /* Bound but not listening yet: not a server. */
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    n = sb_cpu_find_server(endpoint, pids, 8, why, sizeof(why));
    ck_assert_int_eq(n, 0);
    ck_assert_ptr_nonnull(strstr(why, "no local process listens"));

    ck_assert_int_eq(listen(fd, 5), 0);
    n = sb_cpu_find_server(endpoint, pids, 8, why, sizeof(why));
    ck_assert_msg(n == 1, "found %d: %s", n, why);
    ck_assert_int_eq(pids[0], getpid());

    /* A forked child shares the socket: only the top owner is reported. */
    helper = fork();
    ck_assert_int_ge(helper, 0);
    if (helper == 0) {
        for (;;)
            pause();
    }
    n = sb_cpu_find_server(endpoint, pids, 8, why, sizeof(why));
    ck_assert_msg(n == 1, "found %d: %s", n, why);
    ck_assert_int_eq(pids[0], getpid());
    kill(helper, SIGKILL);
    waitpid(helper, &status, 0);

    close(fd);
    unlink(sa.sun_path);
    rmdir(dir);
}
END_TEST

START_TEST(test_find_tcp)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    char endpoint[128], why[MSG];
    pid_t pids[8];
    int fd, other, n, one = 1;
    unsigned port, free_port;

    fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = 0;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    ck_assert_int_eq(listen(fd, 5), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    port = ntohs(sa.sin_port);

    snprintf(endpoint, sizeof(endpoint), "tcp:127.0.0.1:%u", port);
    n = sb_cpu_find_server(endpoint, pids, 8, why, sizeof(why));
    ck_assert_msg(n == 1, "%s: found %d: %s", endpoint, n, why);
    ck_assert_int_eq(pids[0], getpid());

    snprintf(endpoint, sizeof(endpoint), "tcp:localhost:%u", port);
    n = sb_cpu_find_server(endpoint, pids, 8, why, sizeof(why));
    ck_assert_msg(n == 1, "%s: found %d: %s", endpoint, n, why);
    ck_assert_int_eq(pids[0], getpid());

    /* A port nobody listens on: bound and released, so it is free. */
    other = socket(AF_INET, SOCK_STREAM, 0);
    sa.sin_port = 0;
    len = sizeof(sa);
    ck_assert_int_eq(bind(other, (struct sockaddr *)&sa, sizeof(sa)), 0);
    ck_assert_int_eq(getsockname(other, (struct sockaddr *)&sa, &len), 0);
    free_port = ntohs(sa.sin_port);
    snprintf(endpoint, sizeof(endpoint), "tcp:127.0.0.1:%u", free_port);
    n = sb_cpu_find_server(endpoint, pids, 8, why, sizeof(why));
    ck_assert_int_eq(n, 0);
    ck_assert_msg(strstr(why, "no local process listens on tcp:127.0.0.1:")
                  != NULL, "%s", why);
    close(other);
    close(fd);
}
END_TEST

/* An IPv6 loopback listener, when this machine has IPv6. */
START_TEST(test_find_tcp6)
{
    struct sockaddr_in6 sa;
    socklen_t len = sizeof(sa);
    char endpoint[128], why[MSG];
    pid_t pids[8];
    int fd, n;

    fd = socket(AF_INET6, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin6_family = AF_INET6;
    sa.sin6_addr = in6addr_loopback;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        if (fd >= 0)
            close(fd);
        return;                   /* no IPv6 here: nothing to test */
    }
    ck_assert_int_eq(listen(fd, 5), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    snprintf(endpoint, sizeof(endpoint), "tcp:[::1]:%u",
             (unsigned)ntohs(sa.sin6_port));
    n = sb_cpu_find_server(endpoint, pids, 8, why, sizeof(why));
    ck_assert_msg(n == 1, "%s: found %d: %s", endpoint, n, why);
    ck_assert_int_eq(pids[0], getpid());
    close(fd);
}
END_TEST

START_TEST(test_find_remote_and_bad)
{
    char why[MSG];
    pid_t pids[8];

    ck_assert_int_eq(sb_cpu_find_server("tcp:10.1.2.3:3306", pids, 8, why,
                                        sizeof(why)), 0);
    ck_assert_msg(strstr(why, "remote") != NULL, "%s", why);
    ck_assert_ptr_nonnull(strstr(why, "10.1.2.3"));

    ck_assert_int_eq(sb_cpu_find_server("mysql://x", pids, 8, why,
                                        sizeof(why)), 0);
    ck_assert_ptr_nonnull(strstr(why, "bad server endpoint"));
    ck_assert_int_eq(sb_cpu_find_server("tcp:127.0.0.1", pids, 8, why,
                                        sizeof(why)), 0);
    ck_assert_ptr_nonnull(strstr(why, "bad server endpoint"));
    ck_assert_int_eq(sb_cpu_find_server("tcp:127.0.0.1:0", pids, 8, why,
                                        sizeof(why)), 0);
    ck_assert_int_eq(sb_cpu_find_server("unix:", pids, 8, why,
                                        sizeof(why)), 0);
    ck_assert_int_eq(sb_cpu_find_server("unix:/nonexistent/sb_cpu.sock",
                                        pids, 8, why, sizeof(why)), 0);
    ck_assert_ptr_nonnull(strstr(why, "no local process listens"));
    /* why may be NULL. */
    ck_assert_int_eq(sb_cpu_find_server("tcp:10.1.2.3:3306", pids, 8, NULL,
                                        0), 0);
}
END_TEST

static Suite *cpu_suite(void)
{
    Suite *s = suite_create("sb_cpu");
    TCase *parse = tcase_create("parse");
    TCase *figures = tcase_create("figures");
    TCase *live = tcase_create("live");

    tcase_add_test(parse, test_parse_proc_stat);
    tcase_add_test(parse, test_parse_proc_stat_weird_comm);
    tcase_add_test(parse, test_parse_proc_stat_bad);
    tcase_add_test(parse, test_parse_stat_cpu);
    tcase_add_test(parse, test_parse_net_unix);
    tcase_add_test(parse, test_parse_net_tcp);
    suite_add_tcase(s, parse);

    tcase_add_test(figures, test_figures);
    tcase_add_test(figures, test_pid_list);
    suite_add_tcase(s, figures);

    tcase_set_timeout(live, 60);
    tcase_add_test(live, test_live_client);
    tcase_add_test(live, test_live_machine);
    tcase_add_test(live, test_live_server_pid);
    tcase_add_test(live, test_live_server_children);
    tcase_add_test(live, test_live_server_settle);
    tcase_add_test(live, test_find_unix);
    tcase_add_test(live, test_find_tcp);
    tcase_add_test(live, test_find_tcp6);
    tcase_add_test(live, test_find_remote_and_bad);
    suite_add_tcase(s, live);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cpu_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
