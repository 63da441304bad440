/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_CPU_H
#define SB_CPU_H

/*
 * CPU accounting: CPU time spent by the client (this process, and each of
 * its threads), by the database server's processes when they run on this
 * machine, and by the whole machine, turned into CPU microseconds per
 * transaction and utilisation. See doc/design.md "CPU cost per
 * transaction".
 *
 * The module is split in three layers so each can be tested on its own:
 *
 * - pure parsers that take the text of a /proc file (or one line of it) and
 *   fill a struct; they do no I/O, so unit tests feed them fixed strings
 *   (sb_cpu_parse.c);
 * - samplers (sb_cpu_sample.c) and server discovery (sb_cpu_find.c), which
 *   read /proc (Linux only);
 * - sb_cpu_compute, which turns two samples and a transaction count into the
 *   reported figures, again without I/O (sb_cpu_figures.c).
 *
 * Nothing here keeps state between calls; every struct belongs to the
 * caller. The samplers are safe to call from any thread.
 *
 * Accuracy: the client's own times come from getrusage (microseconds);
 * everything read from /proc is in clock ticks (sysconf(_SC_CLK_TCK),
 * normally 100 per second), so a single sample is only good to about 10 ms
 * per process, and short intervals give coarse figures.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Most server processes sb_cpu_find_server or --server-pid will name. */
#define SB_CPU_MAX_SERVER_PIDS 64

/* Longest comm name kept from /proc/<pid>/stat (the kernel's is 16). */
#define SB_CPU_COMM_MAX 64

/* Longest socket path kept from /proc/net/unix (sun_path is 108). */
#define SB_CPU_UNIX_PATH_MAX 256

/* CPU time, split into user and system mode, in nanoseconds. */
struct sb_cpu_times {
    uint64_t user_ns;
    uint64_t system_ns;
};

/* The fields of /proc/<pid>/stat (or /proc/<pid>/task/<tid>/stat) used
 * here. Times are in clock ticks as the kernel prints them. For a process,
 * utime/stime cover all its threads, live and exited; cutime/cstime cover
 * the children it has reaped with wait(). */
struct sb_cpu_proc_stat {
    pid_t pid;
    char comm[SB_CPU_COMM_MAX];   /* without the parentheses; truncated */
    char state;                   /* 'R', 'S', 'Z', ... */
    pid_t ppid;
    uint64_t utime;
    uint64_t stime;
    uint64_t cutime;
    uint64_t cstime;
    long num_threads;
    uint64_t starttime;           /* ticks after boot */
};

/* The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ). guest
 * and guest_nice are already included in user and nice by the kernel, so
 * they are kept for information only and never added again. */
struct sb_cpu_machine_stat {
    uint64_t user;
    uint64_t nice;
    uint64_t system;
    uint64_t idle;
    uint64_t iowait;
    uint64_t irq;
    uint64_t softirq;
    uint64_t steal;
    uint64_t guest;
    uint64_t guest_nice;
};

/* One line of /proc/net/unix. */
struct sb_cpu_unix_entry {
    uint32_t flags;               /* 0x10000 (__SO_ACCEPTCON): listening */
    unsigned type;                /* 1 stream, 2 dgram, 5 seqpacket */
    unsigned state;               /* 1 unconnected, 3 connected, ... */
    uint64_t inode;
    bool listening;               /* flags has __SO_ACCEPTCON */
    char path[SB_CPU_UNIX_PATH_MAX]; /* "" if unbound; '@' starts an
                                        abstract name */
};

/* TCP socket state "listen" as /proc/net/tcp prints it (0A). */
#define SB_CPU_TCP_LISTEN 0x0A

/* One line of /proc/net/tcp or /proc/net/tcp6. */
struct sb_cpu_tcp_entry {
    int family;                   /* AF_INET or AF_INET6 */
    uint8_t local_addr[16];       /* network byte order; IPv4 uses 4 bytes */
    uint16_t local_port;
    uint8_t remote_addr[16];
    uint16_t remote_port;
    unsigned state;               /* SB_CPU_TCP_LISTEN, ... */
    unsigned uid;
    uint64_t inode;
};

/* Which server processes to measure. With include_children each sample
 * also counts every live descendant of each pid and the children each of
 * them has reaped (cutime/cstime), as PostgreSQL needs: its backends are
 * children of the postmaster and come and go during a run. */
struct sb_cpu_server {
    pid_t pids[SB_CPU_MAX_SERVER_PIDS];
    size_t npids;
    bool include_children;
    /* Where the server listens when it was found that way ("" for
     * --server-pid), so a restarted server can be found again. */
    char endpoint[320];
};

/* One sample of everything, taken by sb_cpu_sample. */
struct sb_cpu_sample {
    uint64_t mono_ns;             /* CLOCK_MONOTONIC when taken */
    struct sb_cpu_times client;   /* this process, all threads */
    /* Server processes counted; 0 when not measured (no server set, or none
     * of its pids could be read). */
    size_t server_nprocs;
    struct sb_cpu_times server;
    bool machine_ok;              /* /proc/stat was read and parsed */
    struct sb_cpu_machine_stat machine;
    unsigned ncpus;               /* CPUs of the machine (at least 1) */
    long clk_tck;                 /* clock ticks per second of /proc */
};

/* Figures for the client, the server or one thread between two samples. */
struct sb_cpu_figures {
    bool measured;                /* false: both samples lacked this part */
    double cpu_s;                 /* user + system seconds in the interval */
    /* CPU microseconds per transaction; NAN when there were none. */
    double user_us_per_tx;
    double system_us_per_tx;
    double total_us_per_tx;
    /* cpu_s / (elapsed_s * ncpus) * 100, clamped to [0, 100]. */
    double util_pct;
};

/* Figures for the whole machine between two samples. The per-transaction
 * figures are in CPU microseconds over all CPUs; NAN without transactions.
 * Percentages are shares of all CPU time of the machine in the interval
 * and are clamped to [0, 100]. */
struct sb_cpu_machine_figures {
    bool measured;
    double user_us_per_tx;        /* user + nice */
    double system_us_per_tx;      /* system + irq + softirq */
    double busy_us_per_tx;        /* user + system + irq + softirq + steal */
    double util_pct;              /* busy / all */
    double user_pct;
    double system_pct;
    double iowait_pct;            /* not included in busy */
    double steal_pct;
    double idle_pct;              /* idle alone: user + system + iowait +
                                     steal + idle make 100 */
};

struct sb_cpu_report {
    double elapsed_s;
    unsigned ncpus;
    uint64_t transactions;
    struct sb_cpu_figures client;
    struct sb_cpu_figures server;
    struct sb_cpu_machine_figures machine;
};

/* ------------------------------------------------------- pure parsers */

/*
 * Parses the text of /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat. The
 * comm field is in parentheses and may itself contain spaces and ')', so it
 * is taken up to the LAST ')' of the text. Returns 0, or -1 if the text is
 * malformed (out is then unspecified).
 */
int sb_cpu_parse_proc_stat(const char *text, struct sb_cpu_proc_stat *out);

/*
 * Parses one "cpu  user nice system idle iowait irq softirq steal guest
 * guest_nice" line of /proc/stat (the aggregate "cpu" or a "cpuN" line).
 * Fields missing at the end (older kernels) are zero. Returns 0, or -1 if
 * the line is not a cpu line or has fewer than four numbers.
 */
int sb_cpu_parse_stat_cpu_line(const char *line,
                               struct sb_cpu_machine_stat *out);

/*
 * Parses the whole text of /proc/stat: the aggregate "cpu" line into out
 * and the number of "cpuN" lines into *ncpus. Returns 0, or -1 if there is
 * no valid aggregate line or no cpuN line.
 */
int sb_cpu_parse_proc_stat_text(const char *text,
                                struct sb_cpu_machine_stat *out,
                                unsigned *ncpus);

/*
 * Parses one line of /proc/net/unix. The path is the rest of the line
 * (it may contain spaces), without the newline, truncated to
 * SB_CPU_UNIX_PATH_MAX - 1 bytes. Returns 0, or -1 for the header line or
 * a malformed line.
 */
int sb_cpu_parse_net_unix_line(const char *line,
                               struct sb_cpu_unix_entry *out);

/*
 * Parses one line of /proc/net/tcp (IPv4, 8 hex digits per address) or
 * /proc/net/tcp6 (32 hex digits); the family follows from the width.
 * Addresses are printed by the kernel as 32-bit words in the byte order of
 * the machine, so the text must come from a machine of the same byte order
 * as this one (it always does when read live). Returns 0, or -1 for the
 * header line or a malformed line.
 */
int sb_cpu_parse_net_tcp_line(const char *line,
                              struct sb_cpu_tcp_entry *out);

/* ----------------------------------------------------------- sampling */


/*
 * Reads the CPU times of this process (all its threads) from getrusage.
 * Returns 0, or -1 with errno set.
 */
int sb_cpu_sample_self(struct sb_cpu_times *out);

/*
 * Reads the CPU times of the calling thread alone (getrusage with
 * RUSAGE_THREAD), to the microsecond. Returns 0, or -1 with errno set.
 */
int sb_cpu_sample_this_thread(struct sb_cpu_times *out);

/* One worker thread's CPU over the measured run, for the report. */
struct sb_cpu_thread {
    double user_s;
    double system_s;
    uint64_t events;      /* transactions the thread finished */
};

/*
 * Reads the CPU times of one process, all its threads, from
 * /proc/<pid>/stat (utime + stime). With with_reaped, the times of the
 * children it has reaped (cutime + cstime) are added. Returns 0, or -1 if
 * the process does not exist or is unreadable.
 */
int sb_cpu_sample_process(pid_t pid, bool with_reaped,
                          struct sb_cpu_times *out);

/*
 * Sums the CPU times of a server's processes, each with all its threads.
 * Without include_children: utime + stime of each pid. With it: the whole
 * process tree below each pid is found again at each call by scanning
 * /proc/<pid>/stat for parent pids, and every process in it counts with
 * utime + stime + cutime + cstime.
 *
 * Limitation: a child that has exited since the previous sample but has
 * not been reaped yet, or whose parent is not in the tree, is lost from the
 * sum; once its parent in the tree reaps it (PostgreSQL's postmaster does
 * at once), its time reappears in that parent's cutime/cstime. The sum may
 * therefore dip briefly; sb_cpu_compute treats a decrease as zero.
 *
 * Returns the number of processes counted (>= 1), or 0 if none of the pids
 * could be read (the server is gone); *out is then zero.
 */
size_t sb_cpu_sample_server(const struct sb_cpu_server *server,
                            struct sb_cpu_times *out);

/*
 * The pids of the server's process trees (server->include_children only),
 * sorted, in a malloc'd array the caller frees; the count, or 0 with *pids
 * NULL when not measured or /proc cannot be read.
 */
size_t sb_cpu_server_tree_pids(const struct sb_cpu_server *server, pid_t **pids);

/* How long sb_cpu_server_settle waits for a process that stopped exiting. */
#define SB_CPU_SETTLE_IDLE_S 0.2

/*
 * Waits until every process of the server's trees that is not in known
 * (sorted, from sb_cpu_server_tree_pids before the run's connections
 * opened) has exited and been reaped, polling every 10 ms: a PostgreSQL
 * backend works on after its client closes, and its CPU reaches the
 * postmaster's cutime/cstime only once reaped, so the final sample must
 * wait for it. Gives up after max_s seconds, or when the count of new
 * processes has not fallen for SB_CPU_SETTLE_IDLE_S (other clients'
 * connections). Returns how many new processes remain. Does nothing
 * without server->include_children.
 */
size_t sb_cpu_server_settle(const struct sb_cpu_server *server, const pid_t *known,
                            size_t nknown, double max_s);

/*
 * Reads /proc/stat: the machine's CPU times and its number of CPUs.
 * Returns 0, or -1 if it cannot be read or parsed.
 */
int sb_cpu_sample_machine(struct sb_cpu_machine_stat *out, unsigned *ncpus);

/*
 * Takes one sample: the clock, this process, the server (if server is
 * non-NULL and has pids) and the machine. Parts that cannot be read are
 * marked missing in the sample (server_nprocs == 0, machine_ok false);
 * ncpus falls back to sysconf(_SC_NPROCESSORS_ONLN). Returns 0, or -1 if
 * even this process's own times could not be read.
 */
int sb_cpu_sample(struct sb_cpu_sample *s, const struct sb_cpu_server *server);

/* ---------------------------------------------------- server discovery */

/*
 * Finds the local processes of the server listening at endpoint, which is
 * "unix:/path/to/socket" or "tcp:HOST:PORT" (HOST may be a name, an IPv4
 * address or an IPv6 address, bracketed or not), as a driver reports where
 * its server listens.
 *
 * unix: the LISTENING socket bound to that path in /proc/net/unix.
 * tcp: a socket in state LISTEN on PORT in /proc/net/tcp and /proc/net/tcp6
 * whose local address is the wildcard, the HOST's address, or any loopback
 * address when HOST is loopback ("localhost", 127.x, ::1). A HOST that is
 * not an address of this machine is remote and is not measured. Names other
 * than "localhost" and this machine's hostname are resolved with
 * getaddrinfo, which may query DNS.
 *
 * The owners of the socket inodes are then found by scanning the
 * /proc/<pid>/fd symlinks for "socket:[INODE]", and of the owners only the
 * top ones are kept: those whose parent does not own the socket too. The
 * caller decides whether to include their children (PostgreSQL).
 *
 * Writes up to max pids into pids and returns how many were found. Returns
 * 0 with a one-line reason in why (capacity whylen; why may be NULL), e.g.
 * "server is remote (db.example.com)", "no local process listens on
 * tcp:127.0.0.1:3306", "permission denied reading /proc/PID/fd ...".
 */
int sb_cpu_find_server(const char *endpoint, pid_t *pids, size_t max,
                       char *why, size_t whylen);

/*
 * Parses --server-pid=PID[,PID...]: positive decimal pids separated by
 * commas, duplicates dropped, each of which must exist in /proc. Returns
 * the number of pids written to pids (at most max), or -1 with a one-line
 * reason in err (capacity errlen) for an empty list, a malformed or
 * non-existent pid, or more than max pids.
 */
int sb_cpu_parse_pid_list(const char *s, pid_t *pids, size_t max,
                          char *err, size_t errlen);

/* --------------------------------------------------------- the figures */

/*
 * Figures for one set of CPU times between two samples (also used for a
 * single thread): per-transaction microseconds and utilisation as a share
 * of a machine of ncpus CPUs over elapsed_s seconds. A counter that went
 * down counts as zero. transactions == 0 gives NAN per-transaction figures.
 */
void sb_cpu_times_figures(const struct sb_cpu_times *before,
                          const struct sb_cpu_times *after,
                          uint64_t transactions, double elapsed_s,
                          unsigned ncpus, struct sb_cpu_figures *out);

/*
 * Computes the client, server and machine figures between two samples
 * (after taken later than before) for the transactions finished between
 * them. The server is measured only if both samples measured it, the
 * machine likewise. Never fails; unmeasured parts have measured == false.
 */
void sb_cpu_compute(const struct sb_cpu_sample *before,
                    const struct sb_cpu_sample *after,
                    uint64_t transactions, struct sb_cpu_report *out);

#endif /* SB_CPU_H */
