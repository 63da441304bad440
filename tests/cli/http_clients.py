#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""HTTP clients that abuse a metrics endpoint, for tests/cli/metrics_tests.sh
and bench/metrics_http.sh.

  http_clients.py trickle PORT N SECONDS [--every S] [--status FILE]
      keeps N connections open for SECONDS, each sending a request one byte
      every S seconds (0.5); one the server drops is opened again at once
      (a refused one 50 ms later). With --status, writes "open N" to FILE
      every 0.2 s (the connections established now). Prints one summary
      line: the connections established, dropped by the server, failed
      (refused), and the least and the mean number established (sampled
      every 0.2 s).
  http_clients.py silent PORT N SECONDS [--status FILE]
      the same, sending nothing.
  http_clients.py storm PORT N [--token T] [--timeout S]
      N clients at once: every connection started before any request is
      sent; each sends GET /metrics and reads the whole answer. Prints a
      JSON object: ok (status 200 with the whole body), by status, reset
      (ECONNRESET or EPIPE), refused, timeout, other, and the seconds
      the slowest took.
"""
import argparse
import errno
import json
import os
import selectors
import socket
import sys
import time

REQUEST = b"GET /metrics HTTP/1.1\r\nHost: sysbench\r\nUser-Agent: trickle\r\n\r\n"


def open_conn(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        return None
    return s


def hold(args, send_bytes):
    """trickle and silent: N connections kept open for args.seconds."""
    sel = selectors.DefaultSelector()
    conns = {}  # socket -> [connected, bytes sent, next send time]
    opens = drops = failed = 0
    samples = []
    now = time.monotonic()
    end = now + args.seconds
    next_sample = now
    retry_at = now  # after a refused connection, wait a little

    def refill(now):
        nonlocal failed, retry_at
        while len(conns) < args.n and now >= retry_at:
            s = open_conn(args.port)
            if s is None:
                failed += 1
                retry_at = now + 0.05
                return
            conns[s] = [False, 0, now + args.every]
            sel.register(s, selectors.EVENT_WRITE)

    def gone(s, was_open):
        nonlocal drops, failed, retry_at
        sel.unregister(s)
        s.close()
        del conns[s]
        if was_open:
            drops += 1
        else:
            failed += 1
            retry_at = time.monotonic() + 0.05

    while now < end:
        refill(now)
        if now >= next_sample:
            n_open = sum(1 for st in conns.values() if st[0])
            samples.append(n_open)
            if args.status:
                with open(args.status + ".tmp", "w") as f:
                    f.write("open %d\n" % n_open)
                os.replace(args.status + ".tmp", args.status)
            next_sample = now + 0.2
        for key, _ in sel.select(timeout=0.05):
            s = key.fileobj
            st = conns[s]
            if not st[0]:
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    gone(s, False)
                else:
                    st[0] = True
                    opens += 1
                    sel.modify(s, selectors.EVENT_READ)
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:  # dropped (it never completes a request)
                gone(s, True)
        now = time.monotonic()
        for s, st in list(conns.items()):
            if send_bytes and st[0] and now >= st[2] and st[1] < len(REQUEST):
                try:
                    s.send(REQUEST[st[1]:st[1] + 1])
                    st[1] += 1
                except OSError:
                    pass  # gone: the read sees it
                st[2] = now + args.every
    for s in conns:
        s.close()
    least = min(samples) if samples else 0
    mean = sum(samples) / len(samples) if samples else 0
    print("opens %d drops %d failed %d open_min %d open_mean %.1f" %
          (opens, drops, failed, least, mean))


def parse_answer(buf):
    head, sep, body = buf.partition(b"\r\n\r\n")
    if not sep:
        return None, False
    lines = head.split(b"\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return None, False
    length = None
    for l in lines[1:]:
        k, _, v = l.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v.strip())
    return status, length is not None and len(body) == length


def storm(args):
    sel = selectors.DefaultSelector()
    req = b"GET /metrics HTTP/1.1\r\nHost: sysbench\r\n"
    if args.token:
        req += b"Authorization: Bearer " + args.token.encode() + b"\r\n"
    req += b"Connection: close\r\n\r\n"
    res = {"clients": args.n, "ok": 0, "status": {}, "reset": 0, "refused": 0, "timeout": 0,
           "other": 0, "slowest_s": 0.0}
    start = time.monotonic()
    socks = {}
    for _ in range(args.n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        err = s.connect_ex(("127.0.0.1", args.port))
        if err not in (0, errno.EINPROGRESS):
            res["refused" if err == errno.ECONNREFUSED else "other"] += 1
            s.close()
            continue
        socks[s] = {"sent": False, "buf": b""}
        sel.register(s, selectors.EVENT_WRITE)

    def done(s, kind):
        sel.unregister(s)
        s.close()
        del socks[s]
        if kind:
            res[kind] += 1
        res["slowest_s"] = max(res["slowest_s"], time.monotonic() - start)

    deadline = start + args.timeout
    while socks and time.monotonic() < deadline:
        for key, ev in sel.select(timeout=0.1):
            s = key.fileobj
            st = socks[s]
            try:
                if not st["sent"]:
                    err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                    if err:
                        raise OSError(err, "connect")
                    s.sendall(req)
                    st["sent"] = True
                    sel.modify(s, selectors.EVENT_READ)
                    continue
                data = s.recv(65536)
            except OSError as e:
                kind = {errno.ECONNRESET: "reset", errno.EPIPE: "reset",
                        errno.ECONNREFUSED: "refused"}.get(e.errno, "other")
                done(s, kind)
                continue
            if data:
                st["buf"] += data
                continue
            status, whole = parse_answer(st["buf"])
            key = str(status)
            res["status"][key] = res["status"].get(key, 0) + 1
            done(s, "ok" if status == 200 and whole else "other")
    res["timeout"] += len(socks)
    for s in list(socks):
        s.close()
    print(json.dumps(res, sort_keys=True))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["trickle", "silent", "storm"])
    p.add_argument("port", type=int)
    p.add_argument("n", type=int)
    p.add_argument("seconds", type=float, nargs="?", default=10)
    p.add_argument("--every", type=float, default=0.5)
    p.add_argument("--status")
    p.add_argument("--token")
    p.add_argument("--timeout", type=float, default=20)
    args = p.parse_args()
    if args.mode == "storm":
        storm(args)
    else:
        hold(args, args.mode == "trickle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
